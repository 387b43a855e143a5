/**
 * Untrusted text made safe to show: {@link org.tracewire.text.SafeText} escapes the control and
 * invisible layout characters of names, event strings and file names before a terminal or a
 * line-oriented generated file sees them. The one place tracewire escapes such text.
 */
package org.tracewire.text;
