package org.tracewire.input;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsLocator;

/**
 * The catalogs of event formats that files of frames are matched against ({@code import},
 * {@code export}, {@link PcapngInput}), with the format identity hash each gives
 * ({@link FormatIdentity}): an explicit {@code --formats} (a trace.dat, a tracefs mount or a
 * snapshot directory), the live tracefs (root), the repository's snapshot.
 */
public final class FormatSources {
    /**
     * One candidate.
     *
     * @param label   where the formats come from (a path, or "live tracefs")
     * @param catalog its formats
     * @param tracefs the tree read, or null for a trace.dat
     * @param dat     the trace.dat read (left open), or null for a tree
     * @param hash    {@link FormatIdentity#of(FormatCatalog)} of the catalog
     */
    public record Source(String label, FormatCatalog catalog, Tracefs tracefs, TraceDatFile dat, long hash) {
    }

    private FormatSources() {
    }

    /**
     * @param explicit {@code --formats} or null
     * @return the candidates that could be read, explicit first (trace.dat sources are left open:
     *         the JVM ends with the command)
     * @throws IOException when the explicit source cannot be read
     */
    public static List<Source> candidates(Path explicit) throws IOException {
        return candidates(explicit, null);
    }

    /**
     * Like {@link #candidates(Path)}, but stops reading further sources once one has the identity
     * {@code stopAt} (each catalog costs a parse of every format).
     *
     * @param explicit {@code --formats} or null
     * @param stopAt   the identity wanted, or null to read every source
     * @return the candidates read, the match (if any) last
     * @throws IOException when the explicit source cannot be read
     */
    public static List<Source> candidates(Path explicit, Long stopAt) throws IOException {
        List<Source> out = new ArrayList<>();
        if (explicit != null) {
            if (Files.isRegularFile(explicit)) {
                TraceDatFile f = TraceDatFile.open(explicit);
                out.add(new Source(explicit.toString(), f.catalog(), null, f, FormatIdentity.of(f.catalog())));
            } else {
                Tracefs t = Tracefs.open(explicit);
                FormatCatalog c = t.formats();
                out.add(new Source(explicit.toString(), c, t, null, FormatIdentity.of(c)));
            }
            if (stopAt != null && out.get(out.size() - 1).hash() == stopAt) {
                return out;
            }
        }
        try {
            if (Tracefs.isRoot()) {
                Tracefs t = Tracefs.live();
                FormatCatalog c = t.formats();
                out.add(new Source("live tracefs", c, t, null, FormatIdentity.of(c)));
                if (stopAt != null && out.get(out.size() - 1).hash() == stopAt) {
                    return out;
                }
            }
        } catch (RuntimeException ignored) {
            // not available
        }
        Path snap = TracefsLocator.findSnapshot();
        if (snap != null) {
            try {
                Tracefs t = Tracefs.open(snap);
                FormatCatalog c = t.formats();
                out.add(new Source(snap.toString(), c, t, null, FormatIdentity.of(c)));
            } catch (RuntimeException ignored) {
                // unreadable snapshot
            }
        }
        return out;
    }

    /**
     * The candidate whose identity is {@code hash}.
     *
     * @param candidates from {@link #candidates}
     * @param hash       the frames' format identity
     * @return the first match, or null
     */
    public static Source matching(List<Source> candidates, long hash) {
        for (Source s : candidates) {
            if (s.hash() == hash) {
                return s;
            }
        }
        return null;
    }

    /** True when every format of {@code subset} is in {@code catalog}, identical. */
    public static boolean contains(FormatCatalog catalog, FormatCatalog subset) {
        Map<Integer, EventFormat> byId = catalog.byId();
        for (EventFormat f : subset.formats()) {
            if (!f.equals(byId.get(f.id()))) {
                return false;
            }
        }
        return true;
    }
}
