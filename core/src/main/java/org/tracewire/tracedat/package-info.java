/**
 * trace-cmd's file format ({@code trace.dat}, versions 6 and 7): {@link org.tracewire.tracedat.TraceDatFile}
 * reads the metadata (header page and event, formats, kallsyms, printk formats, saved cmdlines,
 * options, buffers) into tracewire's model types and the per-CPU ring-buffer pages through
 * {@link org.tracewire.ringbuffer.SubBuffer}; {@link org.tracewire.tracedat.TraceDatRecords} merges
 * the records in time order; {@code TraceDatWriter} writes version 6.
 * Sources: {@code trace-cmd.dat.v6(5)}, {@code trace-cmd.dat.v7(5)}, libtracecmd.
 */
package org.tracewire.tracedat;
