#!/usr/bin/env python3
"""Captures (raw record, kernel text) pairs for PrintFmtKernelSamplesTest.

Run as root on the traced machine:  python3 capture_kernel_samples.py OUT.jsonl [per_event]
Creates instance tracewire-printfmt-<pid>, sets nohash-ptr, enables EVENTS, runs a workload,
stops tracing, reads `trace` (non-consuming) then each CPU's trace_pipe_raw (non-blocking),
pairs records with text lines per CPU by time stamp and event name, keeps up to per_event samples of each event,
plus the /proc/kallsyms lines and printk_formats lines the samples need; removes the instance.
"""
import difflib, json, os, re, struct, subprocess, sys, time, bisect

T = "/sys/kernel/tracing"
EVENTS = ["sched", "raw_syscalls", "timer", "irq", "workqueue", "sock", "tcp", "skb", "net", "signal",
          "ipi", "rcu", "task", "kmem:kmalloc", "kmem:kfree", "kmem:mm_page_alloc", "kmem:mm_page_free",
          "syscalls:sys_enter_openat", "syscalls:sys_exit_openat", "syscalls:sys_enter_write",
          "filemap", "writeback", "block", "napi", "udp", "fib", "neigh", "qdisc", "mmap", "vmalloc",
          "cgroup", "oom", "compaction", "x86_fpu", "tlb", "printk", "lock", "power:cpu_idle", "csd", "rseq"]


def w(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    out = sys.argv[1]
    per_event = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    inst = f"{T}/instances/tracewire-printfmt-{os.getpid()}"
    os.mkdir(inst)
    try:
        w(f"{inst}/buffer_size_kb", "4096")
        w(f"{inst}/trace_options", "nohash-ptr")
        for e in EVENTS:
            path = f"{inst}/events/{e.replace(':', '/')}/enable"
            if os.path.exists(path):
                w(path, "1")
        w(f"{inst}/tracing_on", "1")
        workload()
        w(f"{inst}/tracing_on", "0")
        w(f"{inst}/events/enable", "0")
        text = open(f"{inst}/trace", "rb").read().decode("utf-8", "replace")
        ncpu = os.cpu_count()
        raw = {cpu: read_raw(f"{inst}/per_cpu/cpu{cpu}/trace_pipe_raw") for cpu in range(ncpu)}
    finally:
        try:
            w(f"{inst}/tracing_on", "0")
            w(f"{inst}/events/enable", "0")
        except OSError:
            pass
        os.rmdir(inst)
    ids = {}
    for sysname in os.listdir(f"{T}/events"):
        d = f"{T}/events/{sysname}"
        if not os.path.isdir(d):
            continue
        for ev in os.listdir(d):
            try:
                ids[int(open(f"{d}/{ev}/id").read())] = (sysname, ev)
            except (OSError, ValueError):
                pass
    lines = {}
    rx = re.compile(r"^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+(\d+\.\d+): (\w+): (.*)$")
    for ln in text.split("\n"):
        m = rx.match(ln)
        if m:
            sec, usec = m.group(5).split(".")
            lines.setdefault(int(m.group(3)), []).append((m.group(6), int(sec) * 1000000 + int(usec), m.group(7)))
    samples, counts = [], {}
    for cpu, recs in raw.items():
        # pair text lines and raw records by (µs time stamp, event name): keys unique on both
        # sides whose neighbours' keys agree too (guards against drifting time stamps)
        tl = lines.get(cpu, [])
        tkey = [(usec, name) for name, usec, _ in tl]
        rkey = []
        for ts, payload in recs:
            sysev = ids.get(struct.unpack_from("<H", payload, 0)[0])
            rkey.append(((ts + 500) // 1000, sysev[1] if sysev else None))  # ns2usecs() rounds
        # align the two sequences of (µs time stamp, event name) keys; pair records inside
        # matching runs of at least 5, away from the runs' edges
        sm = difflib.SequenceMatcher(None, rkey, tkey, autojunk=False)
        pairs = []
        for blk in sm.get_matching_blocks():
            for k in range(2, blk.size - 2):
                pairs.append((blk.a + k, blk.b + k))
        print(f"cpu {cpu}: {len(tkey)} text lines, {len(rkey)} raw records, {len(pairs)} paired", file=sys.stderr)
        for ri, ti in pairs:
            if rkey[ri][1] is None:
                continue
            payload = recs[ri][1]
            sysev = ids[struct.unpack_from("<H", payload, 0)[0]]
            txt = tl[ti][2]
            ev = f"{sysev[0]}/{sysev[1]}"
            if counts.get(ev, 0) >= per_event:
                continue
            counts[ev] = counts.get(ev, 0) + 1
            samples.append({"event": ev, "cpu": cpu, "payload": payload.hex(), "text": txt})
    # kallsyms lines around every kernel-looking 8-byte value in the samples
    syms = []
    for ln in open("/proc/kallsyms"):
        p = ln.split()
        syms.append((int(p[0], 16), ln.rstrip("\n")))
    syms.sort(key=lambda s: s[0])
    addrs = [s[0] for s in syms]
    keep = set()
    for s in samples:
        b = bytes.fromhex(s["payload"])
        for off in range(0, len(b) - 7, 4):
            v = struct.unpack_from("<Q", b, off)[0]
            if v >> 44 == 0xfffff:
                i = bisect.bisect_right(addrs, v) - 1
                if i >= 0:
                    j = i
                    while j > 0 and addrs[j - 1] == addrs[i]:
                        j -= 1
                    k = i + 1
                    while k < len(addrs) and addrs[k] == addrs[i]:
                        k += 1
                    keep.update(range(j, min(k + 1, len(addrs))))
    ksyms = [syms[i][1] for i in sorted(keep)]
    printk = []
    for ln in open(f"{T}/printk_formats", encoding="latin-1"):
        m = re.match(r"0x([0-9a-f]+) : ", ln)
        if m:
            printk.append((int(m.group(1), 16), ln.rstrip("\n")))
    used = set()
    for s in samples:
        b = bytes.fromhex(s["payload"])
        for off in range(0, len(b) - 7, 4):
            used.add(struct.unpack_from("<Q", b, off)[0])
    pk = [l for a, l in printk if a in used]
    with open(out, "w") as f:
        f.write(json.dumps({"kernel": os.uname().release, "kallsyms": ksyms, "printk_formats": pk,
                            "byte_order": sys.byteorder, "long_size": struct.calcsize("l")}) + "\n")
        for s in samples:
            f.write(json.dumps(s) + "\n")
    print(f"{len(samples)} samples of {len(counts)} events, {len(ksyms)} kallsyms lines, {len(pk)} printk strings")


def workload():
    cmds = [
        "ls -la /usr/bin > /dev/null", "sleep 0.2", "cat /proc/self/status > /dev/null",
        "python3 - <<'P'\nimport socket,threading\ns=socket.socket();s.bind(('127.0.0.1',0));s.listen()\n"
        "c=socket.create_connection(s.getsockname());a,_=s.accept();c.send(b'x'*1000);a.recv(10);c.close();a.close();s.close()\n"
        "s6=socket.socket(socket.AF_INET6);s6.bind(('::1',0));s6.listen()\n"
        "c=socket.create_connection(s6.getsockname()[:2]);a,_=s6.accept();c.close();a.close()\n"
        "u=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);u.sendto(b'hi',('127.0.0.1',9));u.close()\nP",
        "ping -c 2 -i 0.2 127.0.0.1 > /dev/null 2>&1", "sync", "dd if=/dev/zero of=/tmp/tw-printfmt bs=64k count=16 conv=fsync 2>/dev/null; rm -f /tmp/tw-printfmt",
        "sh -c 'kill -USR1 $$ 2>/dev/null; true'", "sleep 0.1",
    ]
    for c in cmds:
        subprocess.run(c, shell=True)
    time.sleep(0.2)


def read_raw(path):
    """Records (payload bytes) of one CPU's trace_pipe_raw, in order."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    recs = []
    try:
        while True:
            try:
                page = os.read(fd, 4096)
            except BlockingIOError:
                break
            if not page:
                break
            recs.extend(parse_page(page))
    finally:
        os.close(fd)
    return recs


def parse_page(page):
    """(time stamp ns, payload) of each data record of one sub-buffer page."""
    ts = struct.unpack_from("<Q", page, 0)[0]
    commit = struct.unpack_from("<Q", page, 8)[0]
    size = commit & 0x3FFFFFFF
    data = page[16:16 + size]
    i, out = 0, []
    while i + 4 <= len(data):
        hdr = struct.unpack_from("<I", data, i)[0]
        tl = hdr & 0x1F
        delta = hdr >> 5
        if tl == 29:
            if delta == 0:
                break
            i += 4 + struct.unpack_from("<I", data, i + 4)[0]
        elif tl == 30:
            ts += (struct.unpack_from("<I", data, i + 4)[0] << 27) | delta
            i += 8
        elif tl == 31:
            ts = (ts & ~((1 << 59) - 1)) | (struct.unpack_from("<I", data, i + 4)[0] << 27) | delta
            i += 8
        elif tl == 0:
            ts += delta
            ln = struct.unpack_from("<I", data, i + 4)[0]
            out.append((ts, data[i + 8:i + 4 + ln]))
            i += 4 + ln
        else:
            ts += delta
            out.append((ts, data[i + 4:i + 4 + tl * 4]))
            i += 4 + tl * 4
    return out


if __name__ == "__main__":
    main()
