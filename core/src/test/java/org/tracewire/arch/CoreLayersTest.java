package org.tracewire.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;

/**
 * Layers inside core: the model (formats, records, print fmts, filters, the wire format, symbols,
 * text) describes and decodes; it does no I/O. It uses no class of the packages that read or write
 * (tracefs, the ring buffer's readers, pcapng and trace.dat files, inputs, {@code io},
 * {@code posix}, the backend protocol), nor the live kernel context, JNA or processes. So a file
 * import, a live capture and a test can all feed the same model. {@link #ruleCatchesAModelClassDoingIo}
 * shows the rule fails on a class that breaks it.
 */
class CoreLayersTest {
    /** The model packages. */
    static final String[] MODEL = {"org.tracewire.format..", "org.tracewire.record..", "org.tracewire.printfmt..",
        "org.tracewire.filter..", "org.tracewire.wire..", "org.tracewire.symbols..", "org.tracewire.text.."};
    /** The packages that do I/O (files, tracefs, the ring buffer's pipes, processes, the protocol). */
    static final String[] IO = {"org.tracewire.tracefs..", "org.tracewire.ringbuffer..", "org.tracewire.pcapng..",
        "org.tracewire.tracedat..", "org.tracewire.input..", "org.tracewire.io..", "org.tracewire.posix..",
        "org.tracewire.protocol..", "com.sun.jna.."};

    static ArchRule modelDoesNoIo() {
        return noClasses().that().resideInAnyPackage(MODEL)
                .should().dependOnClassesThat().resideInAnyPackage(IO)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.tracewire.tracetext.KernelContext")
                .orShould().dependOnClassesThat().haveFullyQualifiedName(ProcessBuilder.class.getName())
                .because("the model is fed alike by files, live captures and tests; I/O stays in its own packages");
    }

    @Test
    void modelPackagesDoNoIo() {
        JavaClasses core = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("org.tracewire");
        assertTrue(core.contain(EventFormat.class) && core.contain("org.tracewire.wire.WireDecoder")
                && core.contain("org.tracewire.tracefs.Tracefs"), "core's main classes are imported");
        modelDoesNoIo().check(core);
    }

    /** Meta-test: a record-package class that reads tracefs (a test fixture) breaks the rule. */
    @Test
    void ruleCatchesAModelClassDoingIo() throws ClassNotFoundException {
        JavaClasses bad = new ClassFileImporter().importClasses(Class.forName("org.tracewire.record.LayerViolationFixture"));
        EvaluationResult r = modelDoesNoIo().evaluate(bad);
        assertTrue(r.hasViolation(), "a model class using Tracefs is caught");
        assertTrue(r.getFailureReport().toString().contains("Tracefs"), r.getFailureReport().toString());
    }
}
