#!/usr/bin/env python3
"""A solver that tries to allocate 2 GiB before answering."""
hog = bytearray(2 << 30)
print(len(hog))
