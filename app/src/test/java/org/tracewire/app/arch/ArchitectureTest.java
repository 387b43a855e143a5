package org.tracewire.app.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.tracewire.archfixture.CoreUsingJavaFx;
import org.tracewire.archfixture.BadViewModel;
import org.tracewire.backend.BackendMain;
import org.tracewire.cli.archfixture.CliUsingBackend;
import org.tracewire.posix.ThreadPriority;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;

/**
 * The walls of the house, checked with ArchUnit on the compiled main classes of every module (the
 * app's test class path holds them all): the module layers, no package cycles, JavaFX only in
 * {@code org.tracewire.app}, no privileged I/O from the app (it reaches the kernel only through
 * the backend), and view models that know no views or nodes. {@link #rulesCatchViolations()}
 * shows that the rules fail on classes that break them.
 */
class ArchitectureTest {
    /** core: the model and codecs; reads tracefs and snapshots, nothing else. */
    static final String[] CORE = {"org.tracewire.analysis..", "org.tracewire.filter..", "org.tracewire.format..", "org.tracewire.input..", "org.tracewire.io..", "org.tracewire.pcapng..",
        "org.tracewire.posix..", "org.tracewire.printfmt..", "org.tracewire.protocol..", "org.tracewire.record..",
        "org.tracewire.ringbuffer..", "org.tracewire.symbols..", "org.tracewire.tracedat..", "org.tracewire.tracefs..", "org.tracewire.tracetext..",
        "org.tracewire.wire.."};

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("org.tracewire");
        assertTrue(main.contain("org.tracewire.cli.Main") && main.contain("org.tracewire.backend.BackendMain")
                && main.contain("org.tracewire.app.TracewireApp") && main.contain("org.tracewire.dissector.DissectorGenerator")
                && main.contain("org.tracewire.store.CaptureStore"),
                "every module's classes are imported");
    }

    /** Modules as layers: who may use whom. */
    static ArchRule layers() {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("core").definedBy(CORE)
                .layer("capture").definedBy("org.tracewire.capture..")
                .layer("dissector-gen").definedBy("org.tracewire.dissector..")
                .layer("store").definedBy("org.tracewire.store..")
                .layer("backend").definedBy("org.tracewire.backend..")
                .layer("cli").definedBy("org.tracewire.cli..")
                .layer("app").definedBy("org.tracewire.app..")
                .whereLayer("core").mayOnlyAccessLayers("core")
                .whereLayer("capture").mayOnlyAccessLayers("core")
                .whereLayer("dissector-gen").mayOnlyAccessLayers("core")
                .whereLayer("store").mayOnlyAccessLayers("core")
                .whereLayer("backend").mayOnlyAccessLayers("core", "capture")
                .whereLayer("cli").mayOnlyAccessLayers("core", "capture", "dissector-gen", "store")
                .whereLayer("app").mayOnlyAccessLayers("core", "dissector-gen", "store")
                .because("libraries below (core, capture, dissector-gen, store), the processes side by side above them "
                        + "(backend, cli, app), none using another process's module (README, layout)");
    }

    /** JavaFX (and ControlsFX, TestFX) only in the desktop app. */
    static ArchRule noGuiOutsideApp() {
        return noClasses().that().resideOutsideOfPackage("org.tracewire.app..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "org.controlsfx..", "org.testfx..")
                .because("the backend and the command line run without a GUI library");
    }

    /** The app reaches the kernel only through the backend. */
    static ArchRule noPrivilegedIoFromApp() {
        return noClasses().that().resideInAPackage("org.tracewire.app..")
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAnyPackage("org.tracewire.capture..",
                        "org.tracewire.backend..", "org.tracewire.ringbuffer..", "org.tracewire.posix..")
                        // a thread's own nice value (background work below the UI thread) is no privileged I/O
                        .and(DescribedPredicate.not(JavaClass.Predicates.equivalentTo(ThreadPriority.class))))
                .orShould().dependOnClassesThat().areAssignableTo(TracefsInstance.class)
                .orShould().callMethod(Tracefs.class, "write", String.class, String.class)
                .orShould().callMethod(Tracefs.class, "createInstance", String.class)
                .orShould().callMethod(Tracefs.class, "instance", String.class)
                .orShould().callMethod(Tracefs.class, "tracePipeRaw", int.class)
                .because("the privileged work happens in the backend process (docs/backend-protocol.md)");
    }

    /** View models are GUI-free: no views, no scene-graph nodes. */
    static ArchRule viewModelsKnowNoViews() {
        return classes().that().haveSimpleNameEndingWith("ViewModel")
                .should().onlyDependOnClassesThat(DescribedPredicate.not(
                        JavaClass.Predicates.simpleNameEndingWith("View")
                                .or(JavaClass.Predicates.resideInAPackage("javafx.scene.."))))
                .because("view models are tested without a GUI (XxxView + XxxViewModel)");
    }

    @Test
    void modulesAreLayered() {
        layers().check(main);
    }

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("org.tracewire.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void javafxOnlyInApp() {
        noGuiOutsideApp().check(main);
    }

    @Test
    void appDoesNoPrivilegedIo() {
        noPrivilegedIoFromApp().check(main);
    }

    @Test
    void viewModelsDoNotReferenceViewsOrNodes() {
        List<JavaClass> viewModels = main.stream().filter(c -> c.getSimpleName().endsWith("ViewModel")).toList();
        assertTrue(viewModels.size() >= 5, viewModels.toString());
        viewModelsKnowNoViews().check(main);
    }

    /** The rules are not vacuous: each fails on a class that breaks it (fixtures in test code). */
    @Test
    void rulesCatchViolations() {
        JavaClasses bad = new ClassFileImporter().importClasses(CoreUsingJavaFx.class, BadViewModel.class,
                BadViewModel.SomeView.class);
        EvaluationResult gui = noGuiOutsideApp().evaluate(bad);
        assertTrue(gui.hasViolation(), "javafx in a non-app class is caught");
        assertTrue(gui.getFailureReport().toString().contains("CoreUsingJavaFx"), gui.getFailureReport().toString());
        EvaluationResult vm = viewModelsKnowNoViews().evaluate(bad);
        assertTrue(vm.hasViolation(), "a view model using a view is caught");
        assertTrue(vm.getFailureReport().toString().contains("SomeView"), vm.getFailureReport().toString());
        JavaClasses app = new ClassFileImporter().importPackages("org.tracewire.app.arch.fixture");
        EvaluationResult priv = noPrivilegedIoFromApp().evaluate(app);
        assertTrue(priv.hasViolation(), "an app class writing to tracefs is caught");
        EvaluationResult process = layers().evaluate(new ClassFileImporter().importClasses(CliUsingBackend.class,
                BackendMain.class));
        assertTrue(process.hasViolation(), "a process using another process's module is caught");
        assertTrue(process.getFailureReport().toString().contains("CliUsingBackend"), process.getFailureReport().toString());
        EvaluationResult clean = noGuiOutsideApp().evaluate(new ClassFileImporter().importClasses(Tracefs.class));
        assertFalse(clean.hasViolation(), clean.getFailureReport().toString());
    }
}
