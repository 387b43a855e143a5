package org.tracewire.app.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;
import org.tracewire.archfixture.SecondPlanner;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextPlanner;

/**
 * One context planner: in the main classes of every module, only core's {@link ContextPlanner}
 * (with the classes it is made of: {@code SymbolLookups}, {@code TaskNames}, {@code PendingMessage})
 * describes tasks, symbols and strings (the PROCESS and SYMBOLS items of
 * {@code docs/wire-format.md} §4.3–4.4), so a live capture and a file import cannot drift apart
 * again. {@link #ruleCatchesASecondPlanner} shows the rule fails on a class that breaks it.
 */
class OnePlannerTest {
    static ArchRule onlyThePlannerDescribes() {
        Class<?> b = ContextMessage.Builder.class;
        // the planner and the parts it is made of (its SYMBOLS and PROCESS sides, the message under way)
        return noClasses().that().haveNameNotMatching(
                        "org\\.tracewire\\.wire\\.(ContextPlanner|SymbolLookups|TaskNames|PendingMessage)(\\$.*)?")
                .should().callMethod(b, "task", int.class, int.class, String.class)
                .orShould().callMethod(b, "symbol", long.class, long.class, long.class, String.class)
                .orShould().callMethod(b, "printk", long.class, String.class)
                .orShould().callMethod(b, "userSymbol", int.class, long.class, long.class, long.class, String.class)
                .orShould().callMethod(b, "userUnknown", int.class, long.class)
                .because("what a record needs on first sight is decided in one place, for capture and import alike");
    }

    @Test
    void onlyThePlannerDescribesTasksAndSymbols() {
        JavaClasses main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("org.tracewire");
        assertTrue(main.contain(ContextPlanner.class) && main.contain("org.tracewire.capture.CaptureContext")
                && main.contain("org.tracewire.cli.ImportCommand"), "the modules' main classes are imported");
        onlyThePlannerDescribes().check(main);
    }

    /** Meta-test: a class that builds a PROCESS item itself breaks the rule. */
    @Test
    void ruleCatchesASecondPlanner() {
        EvaluationResult r = onlyThePlannerDescribes().evaluate(new ClassFileImporter().importClasses(SecondPlanner.class));
        assertTrue(r.hasViolation(), "a second planner is caught");
        assertTrue(r.getFailureReport().toString().contains("SecondPlanner"), r.getFailureReport().toString());
    }
}
