package org.tracewire.app.filter;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleIntegerProperty;
import org.tracewire.app.util.TaskExecutor;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;

/**
 * The filter builder: for one event, a root {@link GroupViewModel} of condition rows, and the
 * live preview of the three compiled forms (kernel filter, Wireshark display filter, BPF),
 * recomputed on every edit through a {@link FilterCompilerAdapter}.
 */
public final class FilterBuilderViewModel {
    private final FilterCompilerAdapter compiler;
    private final ObjectProperty<EventFormat> event = new SimpleObjectProperty<>();
    private final ReadOnlyObjectWrapper<GroupViewModel> root = new ReadOnlyObjectWrapper<>();
    private final ObservableList<String> fieldNames = FXCollections.observableArrayList();
    private final StringProperty kernel = new SimpleStringProperty("");
    private final StringProperty display = new SimpleStringProperty("");
    private final StringProperty bpf = new SimpleStringProperty("");
    private final StringProperty warnings = new SimpleStringProperty("");
    private final BooleanProperty valid = new SimpleBooleanProperty(true);
    private final BooleanProperty bpfExact = new SimpleBooleanProperty(true);
    private Map<String, Field> fields = Map.of();

    /** @param compiler compiles the model into the three forms */
    /** Asks the kernel (through the backend) for its verdict on a kernel filter. */
    public interface KernelCheck {
        /**
         * @param event  {@code system:event}
         * @param filter the kernel filter text
         * @return the verdict, completed on any thread
         */
        CompletableFuture<Verdict> check(String event, String filter);
    }

    /**
     * The kernel's verdict.
     *
     * @param accepted true when the kernel took the filter
     * @param message  the kernel's message when it refused
     * @param position 0-based position of the kernel's caret in the filter, or -1
     */
    public record Verdict(boolean accepted, String message, int position) {
    }

    /** What {@link #kernelVerdictProperty()} says without a live kernel. */
    public static final String NOT_CHECKED = "not checked: no live kernel";

    private final StringProperty kernelVerdict = new SimpleStringProperty(NOT_CHECKED);
    private final IntegerProperty kernelErrorPosition = new SimpleIntegerProperty(-1);
    private KernelCheck kernelCheck;
    private TaskExecutor ui;
    private long generation;

    public FilterBuilderViewModel(FilterCompilerAdapter compiler) {
        this.compiler = compiler;
        event.addListener((o, a, b) -> reset());
        reset();
    }

    /** Drops all rows and starts an empty AND group for the current event. */
    public void reset() {
        EventFormat f = event.get();
        Map<String, Field> map = new LinkedHashMap<>();
        if (f != null) {
            // Event fields first, then the common ones: those are what users filter on most.
            f.fields().forEach(x -> map.put(x.name(), x));
            f.commonFields().forEach(x -> map.put(x.name(), x));
        }
        map.values().removeIf(x -> ValueType.of(x) == ValueType.UNSUPPORTED);
        fields = Map.copyOf(map);
        fieldNames.setAll(map.keySet());
        root.set(new GroupViewModel(null, fields, this::recompile));
        recompile();
    }

    /** Recomputes the previews from the current rows. */
    public void recompile() {
        GroupViewModel r = root.get();
        if (r == null) {
            return;
        }
        valid.set(r.isValid());
        if (!r.isValid()) {
            warnings.set("fix the highlighted values");
            return;
        }
        try {
            FilterCompilerAdapter.Compiled c = compiler.compile(event.get(), r.toModel());
            kernel.set(c.kernel());
            checkKernel(c.kernel());
            display.set(c.display());
            bpf.set(c.bpf());
            bpfExact.set(c.bpfExact());
            warnings.set(String.join("\n", c.warnings()));
        } catch (RuntimeException e) {
            valid.set(false);
            warnings.set("cannot compile: " + e.getMessage());
        }
    }

    /**
     * Checks kernel filters against the live kernel from now on (null: no live kernel).
     *
     * @param check    asks the backend
     * @param executor delivers the verdict on the UI thread
     */
    public void setKernelCheck(KernelCheck check, TaskExecutor executor) {
        this.kernelCheck = check;
        this.ui = executor;
        checkKernel(kernel.get());
    }

    private void checkKernel(String filter) {
        long gen = ++generation;
        kernelErrorPosition.set(-1);
        EventFormat f = event.get();
        if (kernelCheck == null || f == null) {
            kernelVerdict.set(NOT_CHECKED);
            return;
        }
        if (filter == null || filter.isBlank()) {
            kernelVerdict.set("nothing to check");
            return;
        }
        kernelVerdict.set("checking with the kernel…");
        kernelCheck.check(f.fullName(), filter).whenComplete((v, e) -> ui.runOnUi(() -> {
            if (gen != generation) {
                return; // an answer about an older filter
            }
            if (e != null) {
                kernelVerdict.set("not checked: " + (e.getMessage() == null ? e : e.getMessage()));
            } else if (v.accepted()) {
                kernelVerdict.set("accepted by the kernel");
            } else {
                kernelVerdict.set("rejected by the kernel: " + v.message()
                        + (v.position() >= 0 ? " (at position " + v.position() + ")" : ""));
                kernelErrorPosition.set(v.position());
            }
        }));
    }

    /** The kernel's verdict on the kernel filter, as a sentence. */
    public StringProperty kernelVerdictProperty() {
        return kernelVerdict;
    }

    /** Where the kernel's caret sits in the kernel filter when it refused it (0-based), else -1. */
    public IntegerProperty kernelErrorPositionProperty() {
        return kernelErrorPosition;
    }

    /** @return the current filter as an immutable model */
    public FilterNode.Group toModel() {
        return root.get().toModel();
    }

    /** The event being filtered. */
    public ObjectProperty<EventFormat> eventProperty() {
        return event;
    }

    /** The root group (replaced on {@link #reset()}). */
    public ReadOnlyObjectProperty<GroupViewModel> rootProperty() {
        return root.getReadOnlyProperty();
    }

    /** Filterable fields of the event, event fields first. */
    public ObservableList<String> getFieldNames() {
        return fieldNames;
    }

    /** The kernel filter preview. */
    public StringProperty kernelProperty() {
        return kernel;
    }

    /** The Wireshark display filter preview. */
    public StringProperty displayProperty() {
        return display;
    }

    /** The BPF preview. */
    public StringProperty bpfProperty() {
        return bpf;
    }

    /** False when the BPF had to drop conditions (it matches more than the kernel filter). */
    public BooleanProperty bpfExactProperty() {
        return bpfExact;
    }

    /** Compiler warnings, one per line. */
    public StringProperty warningsProperty() {
        return warnings;
    }

    /** False while a row is invalid or the filter does not compile. */
    public BooleanProperty validProperty() {
        return valid;
    }

    /** The filterable fields by name. */
    public Map<String, Field> fields() {
        return fields;
    }

    /** @return the field names the filter builder offers, for tests */
    public List<String> fieldNameList() {
        return List.copyOf(fieldNames);
    }
}
