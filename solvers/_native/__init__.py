"""Where the C kernels built with the package live (``NAME_native.cpython-*.so``, see setup.py).

Each is a plain shared object loaded with ctypes by :mod:`solvers.native_library`; nothing here is
imported as a module.
"""
