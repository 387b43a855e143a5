package org.tracewire.pcapng;

import java.util.Objects;
import org.tracewire.wire.FrameEncoder;

/**
 * An interface of a pcapng section, written as an Interface Description Block
 * (draft-ietf-opsawg-pcapng, section 4.2) with options {@code opt_comment} (1), {@code if_name}
 * (2), {@code if_description} (3), {@code if_tsresol} (9) = 9 (so every time stamp of its packets
 * counts nanoseconds since 1970-01-01 UTC), {@code if_os} (12) and {@code if_hardware} (15).
 * Empty strings leave their option out. A capture names its host in the description
 * ({@code "ftrace events of HOST"}) and its clock mapping in the comment, so an interface still
 * says where its packets came from after files of several hosts are merged.
 *
 * @param linkType    a LINKTYPE_ value: {@link PcapngWriter#LINKTYPE_ETHERNET} for tracewire frames
 * @param snapLength  largest captured length in bytes (0 = unlimited); longer packets are cut
 * @param name        {@code if_name}, e.g. {@code "tracewire0"} (empty = no option)
 * @param description {@code if_description}, e.g. {@code "ftrace events of host vm"} (empty = no option)
 * @param os          {@code if_os}, the capturing host's OS, e.g. {@code "Linux 6.18.0"} (empty = no option)
 * @param hardware    {@code if_hardware}, the capturing host's CPU model (empty = no option)
 * @param comment     {@code opt_comment}, e.g. the trace clock and its offset to wall time (empty = no option)
 */
public record InterfaceInfo(int linkType, int snapLength, String name, String description, String os,
                            String hardware, String comment) {
    public InterfaceInfo {
        if (linkType < 0 || linkType > 0xffff) {
            throw new IllegalArgumentException("link type " + linkType + " outside 0..65535");
        }
        if (snapLength < 0) {
            throw new IllegalArgumentException("snap length " + snapLength + " is negative");
        }
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(os, "os");
        Objects.requireNonNull(hardware, "hardware");
        Objects.requireNonNull(comment, "comment");
    }

    /** An interface with name and description only. */
    public InterfaceInfo(int linkType, int snapLength, String name, String description) {
        this(linkType, snapLength, name, description, "", "", "");
    }

    /**
     * An interface of bare tracewire frames ({@code docs/wire-format.md} §1: link type
     * {@value FrameEncoder#LINKTYPE}, LINKTYPE_USER15), as tracewire's pcapng files hold them.
     *
     * @param snapLength largest frame, bytes
     */
    public static InterfaceInfo tracewire(String name, String description, int snapLength) {
        return new InterfaceInfo(FrameEncoder.LINKTYPE, snapLength, name, description);
    }

    /** An Ethernet interface. */
    public static InterfaceInfo ethernet(String name, String description, int snapLength) {
        return new InterfaceInfo(PcapngWriter.LINKTYPE_ETHERNET, snapLength, name, description);
    }

    /** This interface with the host identity of a section: its OS and hardware as {@code if_os} / {@code if_hardware}. */
    public InterfaceInfo withHost(SectionInfo section) {
        return new InterfaceInfo(linkType, snapLength, name, description, section.os(), section.hardware(), comment);
    }

    /** This interface with another {@code opt_comment}. */
    public InterfaceInfo withComment(String text) {
        return new InterfaceInfo(linkType, snapLength, name, description, os, hardware, text);
    }
}
