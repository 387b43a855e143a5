package org.tracewire.printfmt;

import org.tracewire.symbols.SymbolResolver;

/**
 * The conversions of the kernel's {@code lib/vsprintf.c} (internal): {@code number()},
 * {@code string()}, and the {@code %p} extensions a print fmt uses. Widths and precisions are
 * capped at {@link #MAX_WIDTH} (the kernel's trace_seq holds one page anyway).
 */
final class Vsprintf {
    /** Largest width or precision honoured. */
    static final int MAX_WIDTH = 4096;

    static final int LEFT = 1;
    static final int PLUS = 2;
    static final int SPACE = 4;
    static final int SPECIAL = 8;
    static final int ZEROPAD = 16;
    static final int SIGN = 32;
    static final int SMALL = 64;

    private Vsprintf() {
    }

    static int flags(String flagText) {
        int f = 0;
        for (char c : flagText.toCharArray()) {
            switch (c) {
                case '-' -> f |= LEFT;
                case '+' -> f |= PLUS;
                case ' ' -> f |= SPACE;
                case '#' -> f |= SPECIAL;
                case '0' -> f |= ZEROPAD;
                default -> {
                }
            }
        }
        return f;
    }

    static int cap(int v) {
        return Math.min(v, MAX_WIDTH);
    }

    /**
     * {@code number()}: {@code num} is the value already converted to the conversion's type
     * (sign-extended when {@code SIGN} is set); width/precision -1 when absent.
     */
    // Long: a statement-for-statement port of lib/vsprintf.c's number(), to compare with it
    static void number(StringBuilder out, long num, int base, int flags, int width, int precision) {
        width = cap(width);
        precision = cap(precision);
        boolean needPfx = (flags & SPECIAL) != 0 && base != 10;
        boolean isZero = num == 0;
        boolean locase = (flags & SMALL) != 0;
        if ((flags & LEFT) != 0) {
            flags &= ~ZEROPAD;
        }
        char sign = 0;
        if ((flags & SIGN) != 0) {
            if (num < 0) {
                sign = '-';
                num = -num;
                width--;
            } else if ((flags & PLUS) != 0) {
                sign = '+';
                width--;
            } else if ((flags & SPACE) != 0) {
                sign = ' ';
                width--;
            }
        }
        if (needPfx) {
            if (base == 16) {
                width -= 2;
            } else if (!isZero) {
                width--;
            }
        }
        String digits = Long.toUnsignedString(num, base);
        digits = locase ? digits.toLowerCase() : digits.toUpperCase();
        int i = digits.length();
        if (i > precision) {
            precision = i;
        }
        width -= precision;
        if ((flags & (ZEROPAD | LEFT)) == 0) {
            while (--width >= 0) {
                out.append(' ');
            }
        }
        if (sign != 0) {
            out.append(sign);
        }
        if (needPfx) {
            if (base == 16 || !isZero) {
                out.append('0');
            }
            if (base == 16) {
                out.append(locase ? 'x' : 'X');
            }
        }
        if ((flags & LEFT) == 0) {
            char c = (flags & ZEROPAD) != 0 ? '0' : ' ';
            while (--width >= 0) {
                out.append(c);
            }
        }
        while (i <= --precision) {
            out.append('0');
        }
        out.append(digits);
        while (--width >= 0) {
            out.append(' ');
        }
    }

    /** {@code string()}: at most {@code precision} characters (all when -1), padded to {@code width}. */
    static void string(StringBuilder out, String s, int flags, int width, int precision) {
        width = cap(width);
        if (precision >= 0 && s.length() > precision) {
            s = s.substring(0, precision);
        }
        int pad = width - s.length();
        if ((flags & LEFT) == 0) {
            while (pad-- > 0) {
                out.append(' ');
            }
        }
        out.append(s);
        while (pad-- > 0) {
            out.append(' ');
        }
    }

    /** {@code %pS}-family: {@code sprint_symbol()} / {@code sprint_symbol_no_offset()} / {@code sprint_backtrace()}. */
    static String symbol(long addr, String ext, SymbolResolver symbols, int longSize) {
        char kind = ext.charAt(0);
        boolean backtrace = kind == 'B';
        boolean offset = kind == 'S' || kind == 'B' || kind == 'F';
        long lookupAddr = backtrace ? addr - 1 : addr;
        SymbolResolver.Symbol sym = symbols == null ? null : symbols.lookup(lookupAddr);
        if (sym == null) {
            if (symbols == null && addr != 0) {
                throw new EvalException("%p" + ext + " needs a symbol table, which the print context does not give");
            }
            return "0x" + Long.toHexString(Val.Int.extend(addr, longSize, false));
        }
        StringBuilder sb = new StringBuilder(sym.name());
        if (offset) {
            long off = addr - sym.start();
            sb.append("+0x").append(Long.toHexString(off)).append("/0x").append(Long.toHexString(sym.size()));
        }
        if (sym.module() != null) {
            sb.append(" [").append(sym.module()).append(']');
        }
        return sb.toString();
    }

    /** {@code mac_address_string()}: {@code %pM}, {@code %pMR}, {@code %pMF}, {@code %pm}, {@code %pmR}. */
    static String mac(Val.Mem m, String ext) {
        if (m.available() < 6) {
            throw new EvalException("%p" + ext + " needs 6 bytes, " + m.available() + " available");
        }
        boolean reversed = ext.length() > 1 && ext.charAt(1) == 'R';
        char sep = ext.charAt(0) == 'm' ? 0 : (ext.length() > 1 && ext.charAt(1) == 'F') ? '-' : ':';
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            int b = m.data()[m.offset() + (reversed ? 5 - i : i)] & 0xff;
            hex2(sb, b);
            if (sep != 0 && i != 5) {
                sb.append(sep);
            }
        }
        return sb.toString();
    }

    private static void hex2(StringBuilder sb, int b) {
        sb.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
    }

    static String ip4(byte[] d, int off, boolean leadingZeros) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            int b = d[off + i] & 0xff;
            if (leadingZeros) {
                sb.append(String.format("%03d", b));
            } else {
                sb.append(b);
            }
            if (i < 3) {
                sb.append('.');
            }
        }
        return sb.toString();
    }

    static String ip6Full(byte[] d, int off, boolean colons) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            hex2(sb, d[off + 2 * i] & 0xff);
            hex2(sb, d[off + 2 * i + 1] & 0xff);
            if (colons && i != 7) {
                sb.append(':');
            }
        }
        return sb.toString();
    }

    /** {@code ip6_compressed_string()}: longest zero run (≥ 2 words) as {@code ::}, v4-mapped/ISATAP tails dotted. */
    static String ip6Compressed(byte[] d, int off) {
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = ((d[off + 2 * i] & 0xff) << 8) | (d[off + 2 * i + 1] & 0xff);
        }
        boolean v4mapped = w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0xffff;
        boolean isatap = ((w[4] | 0x0200) == 0x0200) && w[5] == 0x5efe;
        boolean useIPv4 = v4mapped || isatap;
        int range = useIPv4 ? 6 : 8;
        int[] zerolength = new int[8];
        for (int i = 0; i < range; i++) {
            for (int j = i; j < range; j++) {
                if (w[j] != 0) {
                    break;
                }
                zerolength[i]++;
            }
        }
        int longest = 1;
        int colonpos = -1;
        for (int i = 0; i < range; i++) {
            if (zerolength[i] > longest) {
                longest = zerolength[i];
                colonpos = i;
            }
        }
        if (longest == 1) {
            colonpos = -1;
        }
        StringBuilder sb = new StringBuilder();
        boolean needcolon = false;
        for (int i = 0; i < range; i++) {
            if (i == colonpos) {
                if (needcolon || i == 0) {
                    sb.append(':');
                }
                sb.append(':');
                needcolon = false;
                i += longest - 1;
                continue;
            }
            if (needcolon) {
                sb.append(':');
            }
            sb.append(Integer.toHexString(w[i]));
            needcolon = true;
        }
        if (useIPv4) {
            if (needcolon) {
                sb.append(':');
            }
            sb.append(ip4(d, off + 12, false));
        }
        return sb.toString();
    }

    /**
     * {@code ip_addr_string()}: {@code %pI4 %pi4 %pI6 %pi6 %pI6c %pIS[pfsc] %piS}.
     */
    // Long: one branch per address family and extension, in lib/vsprintf.c's order
    static String ip(Val.Mem m, String ext, Evaluator ev) {
        byte[] d = m.data();
        int off = m.offset();
        char kind = ext.length() > 1 ? ext.charAt(1) : 0;
        boolean leading = ext.charAt(0) == 'i';
        switch (kind) {
            case '4' -> {
                need(m, 4, ext);
                return ip4(d, off, leading);
            }
            case '6' -> {
                need(m, 16, ext);
                if (!leading && ext.length() > 2 && ext.charAt(2) == 'c') {
                    return ip6Compressed(d, off);
                }
                return ip6Full(d, off, !leading);
            }
            case 'S' -> {
                need(m, 2, ext);
                String opts = ext.substring(2);
                int family = (int) ev.readInt(d, off, 2, false);
                boolean p = opts.indexOf('p') >= 0;
                if (family == 2) {
                    need(m, 8, ext);
                    String s = ip4(d, off + 4, leading);
                    if (p) {
                        s += ":" + (((d[off + 2] & 0xff) << 8) | (d[off + 3] & 0xff));
                    }
                    return s;
                }
                if (family == 10) {
                    need(m, 28, ext);
                    boolean f = opts.indexOf('f') >= 0;
                    boolean s = opts.indexOf('s') >= 0;
                    boolean c = opts.indexOf('c') >= 0;
                    StringBuilder sb = new StringBuilder();
                    boolean br = p || f || s;
                    if (br) {
                        sb.append('[');
                    }
                    sb.append(!leading && c ? ip6Compressed(d, off + 8) : ip6Full(d, off + 8, !leading));
                    if (br) {
                        sb.append(']');
                    }
                    if (p) {
                        sb.append(':').append(((d[off + 2] & 0xff) << 8) | (d[off + 3] & 0xff));
                    }
                    if (f) {
                        long flow = ((d[off + 4] & 0xffL) << 24 | (d[off + 5] & 0xffL) << 16 | (d[off + 6] & 0xffL) << 8
                                | (d[off + 7] & 0xffL)) & 0x0fffffffL;
                        sb.append('/').append(flow);
                    }
                    if (s) {
                        sb.append('%').append(ev.readInt(d, off + 24, 4, false));
                    }
                    return sb.toString();
                }
                return "(invalid address)";
            }
            default -> throw new EvalException("unsupported %p" + ext);
        }
    }

    private static void need(Val.Mem m, int n, String ext) {
        if (m.available() < n) {
            throw new EvalException("%p" + ext + " needs " + n + " bytes, " + m.available() + " available");
        }
    }

    /** {@code uuid_string()}: {@code %pU[bBlL]}. */
    static String uuid(Val.Mem m, String ext) {
        need(m, 16, ext);
        char k = ext.length() > 1 ? ext.charAt(1) : 'b';
        int[] index = (k == 'l' || k == 'L') ? new int[] {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15}
                : new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        boolean upper = k == 'B' || k == 'L';
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            hex2(sb, m.data()[m.offset() + index[i]] & 0xff);
            if (i == 3 || i == 5 || i == 7 || i == 9) {
                sb.append('-');
            }
        }
        return upper ? sb.toString().toUpperCase() : sb.toString();
    }

    /** {@code bitmap_string()} ({@code %*pb}) and {@code bitmap_list_string()} ({@code %*pbl}). */
    static String bitmap(Evaluator ev, Val.Mem m, long nrBits, boolean list) {
        int ls = ev.longSize();
        nrBits = Math.max(0, Math.min(nrBits, (long) m.available() * 8));
        nrBits = Math.min(nrBits, 1 << 20);
        int nb = (int) nrBits;
        if (list) {
            StringBuilder sb = new StringBuilder();
            int i = 0;
            while (i < nb) {
                if (!bit(ev, m, i, ls)) {
                    i++;
                    continue;
                }
                int j = i;
                while (j + 1 < nb && bit(ev, m, j + 1, ls)) {
                    j++;
                }
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(i);
                if (j > i) {
                    sb.append('-').append(j);
                }
                i = j + 1;
            }
            return sb.toString();
        }
        StringBuilder sb = new StringBuilder();
        int chunksz = nb & 31;
        if (chunksz == 0) {
            chunksz = 32;
        }
        boolean first = true;
        for (int i = ((nb + 31) / 32) * 32 - 32; i >= 0; i -= 32) {
            long val = 0;
            for (int b = chunksz - 1; b >= 0; b--) {
                val = (val << 1) | (bit(ev, m, i + b, ls) ? 1 : 0);
            }
            if (!first) {
                sb.append(',');
            }
            first = false;
            number(sb, val, 16, SMALL | ZEROPAD, (chunksz + 3) / 4, -1);
            chunksz = 32;
        }
        return sb.toString();
    }

    private static boolean bit(Evaluator ev, Val.Mem m, int n, int longSize) {
        int word = n / (longSize * 8);
        int bit = n % (longSize * 8);
        int off = m.offset() + word * longSize;
        if (off + longSize > m.limit()) {
            return false;
        }
        long w = ev.readInt(m.data(), off, longSize, false);
        return ((w >>> bit) & 1) != 0;
    }

    /** {@code hex_string()}: {@code %*ph[CDN]}, at most 64 bytes. */
    static String hexString(Val.Mem m, String ext, int width) {
        int len = width < 0 ? 1 : Math.min(width, 64);
        len = Math.min(len, m.available());
        char sep = ext.length() > 1 ? switch (ext.charAt(1)) {
            case 'C' -> ':';
            case 'D' -> '-';
            case 'N' -> (char) 0;
            default -> ' ';
        } : ' ';
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            if (i > 0 && sep != 0) {
                sb.append(sep);
            }
            hex2(sb, m.data()[m.offset() + i] & 0xff);
        }
        return sb.toString();
    }
}
