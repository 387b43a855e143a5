package org.tracewire.app.filter;

import org.tracewire.filter.Filter;

/** A row of the filter builder: a condition or a group. */
public sealed interface FilterItemViewModel permits ConditionViewModel, GroupViewModel {
    /**
     * This row (and its children) as core's filter tree.
     *
     * @return the tree; null for a group without conditions
     * @throws IllegalStateException when a condition of this row is invalid ({@link #isValid()})
     */
    Filter toFilter();

    /** @return true when this row and all its children are valid */
    boolean isValid();

    /** @return the group holding this row, or null for the root */
    GroupViewModel parent();
}
