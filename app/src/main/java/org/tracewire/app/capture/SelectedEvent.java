package org.tracewire.app.capture;

import java.util.List;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.tracewire.record.EventRecord;

/**
 * The event table's selected row as the details pane shows it: a tree ({@link EventDetailTree}:
 * common fields, each field as the kernel prints it and raw, the kernel's text), the stacks
 * recorded with it once the store has looked them up, and its fields one per line.
 */
final class SelectedEvent {
    private final ObjectProperty<List<EventDetailTree.Node>> details = new SimpleObjectProperty<>(List.of());
    private final StringProperty fields = new SimpleStringProperty("");
    private final EventDetailTree tree = new EventDetailTree();
    private final EventTableViewModel table;
    private final ObjectProperty<StoreTable> store;

    /**
     * @param table the event table (its selection and time format)
     * @param store the capture's store table, null while there is none (for the stacks)
     */
    SelectedEvent(EventTableViewModel table, ObjectProperty<StoreTable> store) {
        this.table = table;
        this.store = store;
        table.selectedProperty().addListener((o, a, b) -> show(b));
    }

    private void show(EventRow b) {
        fields.set(b == null ? "" : b.fieldsText());
        details.set(b == null ? List.of() : details(b));
        StoreTable t = store.get();
        if (b != null && t != null && b.frame() > 0) {
            t.stacksOf(b.frame(), frames -> {
                if (table.selectedProperty().get() == b) {
                    details.set(EventDetailTree.withStacks(details.get(), frames));
                }
            });
        }
    }

    private List<EventDetailTree.Node> details(EventRow row) {
        return tree.of(row, row.record(), table.timeText(row));
    }

    ObjectProperty<List<EventDetailTree.Node>> detailsProperty() {
        return details;
    }

    StringProperty fieldsProperty() {
        return fields;
    }
}
