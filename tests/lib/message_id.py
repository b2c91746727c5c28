# SPDX-License-Identifier: GPL-2.0
"""The journal MESSAGE_ID of a kprint format of a module, derived apart from
libkpc's kpc_message_id() as docs/journal.md writes it, for the tests that
check the C against it: python3 tests/lib/message_id.py FORMAT MODULE.
A helper of the tests, not a test."""
import sys


def fnv1a(data, h, prime, bits):
    for c in data:
        h = ((h ^ c) * prime) & ((1 << bits) - 1)
    return h


def message_id(fmt, module):
    format_id = fnv1a(fmt.encode(), 0xcbf29ce484222325, 0x100000001b3, 64)
    key = b"kprint-message-id-v1\0" + b"%016x" % format_id + b"\0" + module.encode()
    return "%032x" % fnv1a(key, 0x6c62272e07bb014262b821756295c58d, (1 << 88) + 0x13b, 128)


if __name__ == "__main__":
    print(message_id(sys.argv[1], sys.argv[2]))
