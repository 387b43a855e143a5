package org.tracewire.app.filter;

import java.nio.ByteOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.filter.Comparison;
import org.tracewire.filter.CompiledFilter;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterField;
import org.tracewire.filter.FilterProblem;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.filter.FilterValidator;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Not;
import org.tracewire.format.EventFormat;

/**
 * The filter builder: for one event, a root {@link GroupViewModel} of condition rows that make a
 * tree of core's filter model ({@link Filter}), and the live preview of its three compiled forms
 * (kernel filter, Wireshark display filter, BPF) by {@link CompiledFilter#compile}, the same
 * compilers {@code tracewire filter} uses, recomputed on every edit. While a row is invalid the
 * previews are empty. {@link #load(String)} reads kernel filter text into rows.
 */
public final class FilterBuilderViewModel {
    private final Supplier<ByteOrder> byteOrder;
    private final ObjectProperty<EventFormat> event = new SimpleObjectProperty<>();
    private final ReadOnlyObjectWrapper<GroupViewModel> root = new ReadOnlyObjectWrapper<>();
    private final ObservableList<String> fieldNames = FXCollections.observableArrayList();
    private final StringProperty kernel = new SimpleStringProperty("");
    private final StringProperty display = new SimpleStringProperty("");
    private final StringProperty bpf = new SimpleStringProperty("");
    private final StringProperty warnings = new SimpleStringProperty("");
    private final BooleanProperty valid = new SimpleBooleanProperty(true);
    private final BooleanProperty bpfExact = new SimpleBooleanProperty(true);
    private final StringProperty text = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper loadError = new ReadOnlyStringWrapper("");
    private final ReadOnlyIntegerWrapper loadErrorPosition = new ReadOnlyIntegerWrapper(-1);
    private Map<String, FilterField> fields = Map.of();
    private boolean loading;

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

    /**
     * @param byteOrder the traced kernel's byte order (of the tracefs browsed), for the BPF's
     *                  values; null or a null answer means little endian
     */
    public FilterBuilderViewModel(Supplier<ByteOrder> byteOrder) {
        this.byteOrder = byteOrder;
        event.addListener((o, a, b) -> reset());
        reset();
    }

    /** Drops all rows and starts an empty AND group for the current event. */
    public void reset() {
        root.set(newRoot());
        recompile();
    }

    private GroupViewModel newRoot() {
        EventFormat f = event.get();
        Map<String, FilterField> map = new LinkedHashMap<>();
        if (f != null) {
            // Event fields first, then CPU and COMM, then the common ones: what users filter on most.
            FilterField.filterable(f).forEach(x -> map.put(x.name(), x));
        }
        fields = Collections.unmodifiableMap(map);
        fieldNames.setAll(map.keySet());
        return new GroupViewModel(null, f, fields, this::recompile);
    }

    /** Recomputes the previews from the current rows; empties them while a row is invalid. */
    public void recompile() {
        GroupViewModel r = root.get();
        if (r == null || loading) {
            return;
        }
        valid.set(r.isValid());
        if (!r.isValid()) {
            clearOutputs("fix the highlighted values");
            return;
        }
        Filter f = r.toFilter();
        EventFormat format = event.get();
        if (f == null || format == null) {
            clearOutputs("");
            return;
        }
        CompiledFilter c;
        try {
            ByteOrder order = byteOrder == null ? null : byteOrder.get();
            c = CompiledFilter.compile(f, format, order == null ? ByteOrder.LITTLE_ENDIAN : order);
        } catch (RuntimeException e) {
            valid.set(false);
            clearOutputs("cannot compile: " + e.getMessage());
            return;
        }
        kernel.set(c.kernel());
        checkKernel(c.kernel());
        display.set(c.display());
        bpf.set(c.bpf());
        bpfExact.set(c.bpfExact());
        warnings.set(String.join("\n", c.warnings()));
    }

    private void clearOutputs(String why) {
        kernel.set("");
        checkKernel("");
        display.set("");
        bpf.set("");
        bpfExact.set(true);
        warnings.set(why);
    }

    /**
     * Replaces the rows with a filter in the kernel's syntax (typed or pasted), parsed with core's
     * parser and checked against the event, as {@code tracewire filter} reads it. The rows keep
     * the tree's shape: a chain of {@code &&} (or {@code ||}) becomes one group, a parenthesised
     * operand of the other kind a nested group, {@code !(...)} a negated group. Blank text clears
     * the rows. On an error the rows stay as they were and {@link #loadErrorProperty()} and
     * {@link #loadErrorPositionProperty()} say what and where.
     *
     * @param text kernel filter text, e.g. {@code prev_pid == 1 && !(next_comm ~ "kworker*")}
     * @return true when the text was loaded
     */
    public boolean load(String text) {
        loadError.set("");
        loadErrorPosition.set(-1);
        EventFormat format = event.get();
        if (format == null) {
            loadError.set("no event selected");
            return false;
        }
        if (text == null || text.isBlank()) {
            reset();
            return true;
        }
        Filter f;
        try {
            f = Filter.parse(text);
            List<FilterProblem> problems = FilterValidator.validate(f, format);
            if (!problems.isEmpty()) {
                throw new FilterSyntaxException(problems.get(0).position(), problems.get(0).message());
            }
        } catch (FilterSyntaxException e) {
            loadError.set("position " + e.position() + ": " + e.detail());
            loadErrorPosition.set(e.position());
            return false;
        }
        GroupViewModel r = newRoot();
        loading = true;
        try {
            fill(r, f);
        } finally {
            loading = false;
        }
        root.set(r);
        recompile();
        return true;
    }

    /** Fills an empty group with {@code f}: its junction's operands, or its operand when negated. */
    private static void fill(GroupViewModel g, Filter f) {
        Filter inner = f;
        if (f instanceof Not n) {
            g.negatedProperty().set(true);
            inner = n.operand();
        }
        Junction j = Junction.of(inner);
        g.junctionProperty().set(j == null ? Junction.AND : j);
        for (Filter operand : j == null ? List.of(inner) : j.operands(inner)) {
            if (operand instanceof Comparison c) {
                g.addCondition(null).set(c);
            } else {
                fill(g.addGroup(Junction.AND), operand);
            }
        }
    }

    /** The kernel filter text box (what {@link #load(String)} reads when the user presses Load). */
    public StringProperty textProperty() {
        return text;
    }

    /** Why the last {@link #load(String)} failed ({@code "position N: message"}); empty after a success. */
    public ReadOnlyStringProperty loadErrorProperty() {
        return loadError.getReadOnlyProperty();
    }

    /** 0-based position in the text of the last failed {@link #load(String)}, else -1. */
    public ReadOnlyIntegerProperty loadErrorPositionProperty() {
        return loadErrorPosition.getReadOnlyProperty();
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

    /**
     * The current filter as core's tree.
     *
     * @return the tree; null when there is no condition
     * @throws IllegalStateException while a row is invalid
     */
    public Filter toFilter() {
        return root.get().toFilter();
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

    /** The kernel filter preview; empty while a row is invalid or there is no condition. */
    public StringProperty kernelProperty() {
        return kernel;
    }

    /** The Wireshark display filter preview; empty while a row is invalid or there is no condition. */
    public StringProperty displayProperty() {
        return display;
    }

    /** The BPF preview; empty while a row is invalid or there is no condition. */
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

    /** The filterable fields by name, in the order of {@link #getFieldNames()}. */
    public Map<String, FilterField> fields() {
        return fields;
    }

    /** @return the field names the filter builder offers, for tests */
    public List<String> fieldNameList() {
        return List.copyOf(fieldNames);
    }
}
