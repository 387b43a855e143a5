package org.tracewire.archfixture;

import javafx.scene.control.Label;

/** Test fixture for ArchitectureTest: a class outside org.tracewire.app that uses JavaFX (forbidden). */
public final class CoreUsingJavaFx {
    /** @return a JavaFX node, which only the app may make */
    public Object node() {
        return new Label("forbidden");
    }
}
