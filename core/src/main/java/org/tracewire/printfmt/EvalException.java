package org.tracewire.printfmt;

/** An expression that cannot be evaluated for one record (internal; turned into a fallback). */
final class EvalException extends RuntimeException {
    EvalException(String message) {
        super(message, null, false, false);
    }
}
