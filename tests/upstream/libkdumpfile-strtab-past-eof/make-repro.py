#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The smallest ELF vmcore that crashes libkdumpfile 0.5.1 in
kdump_open_fdset(): its section-name string table (section 1, placed at
the end of the file as QEMU's dump-guest-memory places it) claims more
bytes than the file has. Writes the file named on the command line."""
import struct
import sys

PAGE = 4096
LOAD_OFF = PAGE                 # one page of "memory"
STRTAB_OFF = 2 * PAGE           # the table itself: b"\0.shstrtab\0"
STRTAB = b"\0.shstrtab\0"
CLAIMED = 0x10000               # what sh_size says: past the end of file


def main(path, healthy=False):
    ehdr = struct.pack("<16sHHIQQQIHHHHHH",
                       b"\x7fELF\x02\x01\x01" + bytes(9),
                       4, 62, 1,            # ET_CORE, EM_X86_64, EV_CURRENT
                       0, 192, 64,          # e_entry, e_phoff, e_shoff
                       0, 64, 56, 1,        # flags, ehsize, phentsize, phnum
                       64, 2, 1)            # shentsize, shnum, shstrndx
    sh0 = bytes(64)
    size = len(STRTAB) if healthy else CLAIMED
    sh1 = struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, STRTAB_OFF, size,
                      0, 0, 1, 0)           # SHT_STRTAB
    phdr = struct.pack("<IIQQQQQQ", 1, 4, LOAD_OFF, 0, 0, PAGE, PAGE, 0)
    head = ehdr + sh0 + sh1 + phdr
    body = head + bytes(LOAD_OFF - len(head)) + bytes(PAGE) + STRTAB
    with open(path, "wb") as f:
        f.write(body)


if __name__ == "__main__":
    # --healthy: the same file with a true sh_size, which opens fine
    main(sys.argv[1], healthy="--healthy" in sys.argv[2:])
