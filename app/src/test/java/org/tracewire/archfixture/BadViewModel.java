package org.tracewire.archfixture;

/** Test fixture for ArchitectureTest: a view model that holds a view (forbidden). */
public final class BadViewModel {
    /** A view, as far as the rule can tell by its name. */
    public static final class SomeView {
    }

    private final SomeView view = new SomeView();

    /** @return the view it should not know */
    public SomeView view() {
        return view;
    }
}
