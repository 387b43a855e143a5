package org.tracewire.app.histogram;

import java.util.ArrayList;
import java.util.List;
import javafx.beans.Observable;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.analysis.HistField;
import org.tracewire.analysis.HistSort;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistSpecException;
import org.tracewire.filter.Filter;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;

/**
 * The histogram builder's parts, in the kernel's hist-trigger vocabulary
 * ({@code Documentation/trace/histogram.rst}): up to two keys with their modifiers (the first
 * with a bucket size for {@code .buckets=N}), the summed values, the sort field and order, the
 * size and the {@code if} filter, and the event's fields they choose from. {@link #spec()} reads
 * them as a {@link HistSpec}; {@link #show(HistSpec)} writes one back into them.
 */
public final class HistBuilder {
    /** "No second key". */
    public static final String NONE = "";

    private final ObservableList<String> fields = FXCollections.observableArrayList();
    private final ObservableList<String> numericFields = FXCollections.observableArrayList();
    private final StringProperty key1 = new SimpleStringProperty("common_pid");
    private final ObjectProperty<HistField.Modifier> key1Modifier = new SimpleObjectProperty<>(HistField.Modifier.EXECNAME);
    private final LongProperty key1Buckets = new SimpleLongProperty(0);
    private final StringProperty key2 = new SimpleStringProperty(NONE);
    private final ObjectProperty<HistField.Modifier> key2Modifier = new SimpleObjectProperty<>(HistField.Modifier.NONE);
    private final ObservableList<String> values = FXCollections.observableArrayList();
    private final StringProperty sortField = new SimpleStringProperty("hitcount");
    private final BooleanProperty descending = new SimpleBooleanProperty(true);
    private final IntegerProperty size = new SimpleIntegerProperty(HistSpec.DEFAULT_SIZE);
    private final StringProperty filter = new SimpleStringProperty("");

    /** Every part, to listen to them all. */
    List<Observable> parts() {
        return List.of(key1, key1Modifier, key1Buckets, key2, key2Modifier, sortField, descending, size, filter, values);
    }

    /**
     * The spec the parts say.
     *
     * @throws HistSpecException when no key field is chosen (position -1) or the spec is invalid
     * @throws RuntimeException  when the filter does not parse (its message says where)
     */
    HistSpec spec() {
        List<HistField> keys = new ArrayList<>();
        keys.add(field(key1.get(), key1Modifier.get(), key1Buckets.get()));
        if (key2.get() != null && !key2.get().isBlank()) {
            keys.add(field(key2.get(), key2Modifier.get(), 0));
        }
        List<HistField> vals = values.stream().map(HistField::of).toList();
        List<HistSort> sort = List.of(new HistSort(sortField.get() == null || sortField.get().isBlank() ? "hitcount" : sortField.get(),
                descending.get()));
        Filter flt = filter.get() == null || filter.get().isBlank() ? null : Filter.parse(filter.get());
        return HistSpec.of(keys, vals).withSort(sort).withSize(size.get()).withFilter(flt);
    }

    private static HistField field(String name, HistField.Modifier m, long buckets) {
        if (name == null || name.isBlank()) {
            throw new HistSpecException(-1, "choose a key field");
        }
        HistField.Modifier mod = m == null ? HistField.Modifier.NONE : m;
        if (mod == HistField.Modifier.BUCKETS) {
            return HistField.buckets(name, buckets <= 0 ? 1 : buckets);
        }
        return HistField.of(name, mod);
    }

    /** Sets the parts to a spec of one or two keys (its first sort field only). */
    void show(HistSpec s) {
        HistField k1 = s.keys().get(0);
        key1.set(k1.name());
        key1Modifier.set(k1.modifier());
        key1Buckets.set(k1.buckets());
        if (s.keys().size() > 1) {
            key2.set(s.keys().get(1).name());
            key2Modifier.set(s.keys().get(1).modifier());
        } else {
            key2.set(NONE);
            key2Modifier.set(HistField.Modifier.NONE);
        }
        values.setAll(s.values().stream().map(HistField::name).toList());
        HistSort first = s.sort().get(0);
        sortField.set(first.field());
        descending.set(first.descending());
        size.set(s.size());
        filter.set(s.filter() == null ? "" : s.filter().toText());
    }

    /**
     * Offers an event's fields: every field (with {@code common_pid} and {@code common_cpu}, and
     * {@code stacktrace} when {@code stacks}) as a key, its numeric fields of 1, 2, 4 or 8 bytes as
     * values. The parts stay within them: values not offered go, a first key not offered becomes
     * {@code common_pid.execname}, a second one none.
     *
     * @param f      the event's format, or null (only the common fields)
     * @param stacks whether the events have stacks (a store with the {@code stack} view)
     */
    void offer(EventFormat f, boolean stacks) {
        List<String> all = new ArrayList<>(List.of("common_pid", "common_cpu"));
        List<String> nums = new ArrayList<>();
        if (f != null) {
            for (Field fd : f.fields()) {
                all.add(fd.name());
                if (!fd.kind().isString() && (fd.size() == 1 || fd.size() == 2 || fd.size() == 4 || fd.size() == 8)) {
                    nums.add(fd.name());
                }
            }
        }
        if (stacks) {
            all.add("stacktrace");
        }
        // a Key box over these lists lets go of its value when they are replaced: keep the keys
        String k1 = key1.get();
        String k2 = key2.get();
        fields.setAll(all);
        numericFields.setAll(nums);
        values.retainAll(nums);
        key1.set(k1);
        key2.set(k2);
        if (!all.contains(key1.get())) {
            key1.set("common_pid");
            key1Modifier.set(HistField.Modifier.EXECNAME);
        }
        if (!NONE.equals(key2.get()) && !all.contains(key2.get())) {
            key2.set(NONE);
        }
    }

    /** The chosen event's fields usable as keys (with common_pid and common_cpu). */
    public ObservableList<String> getFields() {
        return fields;
    }

    /** The chosen event's numeric fields (values to sum). */
    public ObservableList<String> getNumericFields() {
        return numericFields;
    }

    /** The first key field. */
    public StringProperty key1Property() {
        return key1;
    }

    /** The first key's modifier. */
    public ObjectProperty<HistField.Modifier> key1ModifierProperty() {
        return key1Modifier;
    }

    /** The first key's bucket size (with {@code .buckets}). */
    public LongProperty key1BucketsProperty() {
        return key1Buckets;
    }

    /** The second key field, {@link #NONE} for none. */
    public StringProperty key2Property() {
        return key2;
    }

    /** The second key's modifier. */
    public ObjectProperty<HistField.Modifier> key2ModifierProperty() {
        return key2Modifier;
    }

    /** The summed value fields. */
    public ObservableList<String> getValues() {
        return values;
    }

    /** The sort field: hitcount, a value or a key. */
    public StringProperty sortFieldProperty() {
        return sortField;
    }

    /** Sort descending. */
    public BooleanProperty descendingProperty() {
        return descending;
    }

    /** The table's entry limit (rounded up to a power of two in 128..131072 as the kernel does). */
    public IntegerProperty sizeProperty() {
        return size;
    }

    /** The {@code if} filter in the kernel's filter syntax, empty for none. */
    public StringProperty filterProperty() {
        return filter;
    }
}
