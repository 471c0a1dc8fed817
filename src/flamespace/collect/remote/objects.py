"""Python objects of another process, read from outside: ints, floats, strs, bytes, tuples, dicts, an
instance's attributes, a module of ``sys.modules``, and a short description of any object.

What reads them: thread names (:mod:`.names`: ``threading._active``, a dict of ident -> Thread, and
each Thread's ``_name``) and ``dump --locals`` (:mod:`.frame_locals`). Layouts per version are
:class:`~.layouts.Layout`'s (docs/attach.md, "Versions"): a dict's keys changed in 3.11, instances keep
their attributes by ``tp_dictoffset`` (3.9, 3.10), in a "managed" dict or values before the object
(3.11, 3.12) or inline after it (3.13).

Every object is checked before it is read as one: its type pointer must be the type's address from
the symbol table, a dict's keys of a known kind and size; what fails a check is a
:class:`ValueError` (the program ran on and freed it, or it is not what was expected), never garbage.
"""

from __future__ import annotations

import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .stacks import StackReader

#: A dict with more entries than this is read no further (sys.modules has hundreds).
MAX_ENTRIES = 1 << 16
#: An int of more 30-bit digits than this is described by its type, not its value.
MAX_DIGITS = 64
#: How many characters of a value ``dump --locals`` shows (longer ones end in "...").
VALUE_WIDTH = 100

# tp_flags bits (Include/object.h)
_INLINE_VALUES = 1 << 2  # 3.13
_MANAGED_DICT = 1 << 4  # 3.11+
_TYPE_SUBCLASS = 1 << 31  # a subclass of type: a metaclass
_GENERAL_KEYS, _UNICODE_KEYS, _SPLIT_KEYS = 0, 1, 2  # 3.11+'s dk_kind
_TYPE_NAME, _TYPE_BASICSIZE, _TYPE_FLAGS, _TYPE_DICTOFFSET = 24, 32, 168, 288  # the same in 3.9-3.13
_DICT_KEYS, _DICT_VALUES = 32, 40
_TUPLE_SIZE, _TUPLE_ITEMS = 16, 24
_FLOAT_VALUE, _CELL_REF, _MODULE_DICT, _LONG_HEAD, _LONG_DIGITS = 16, 16, 16, 16, 24
_PAGE = 4096


class ObjectReader:
    """Reads objects of ``reader.process`` (a :class:`~.stacks.StackReader`'s, whose str reads it shares)."""

    def __init__(self, reader: StackReader) -> None:
        self.reader = reader
        self.process = reader.process
        self.layout = reader.process.layout
        self.symbols = reader.process.symbols

    # -- words and types ---------------------------------------------------------------------

    def word(self, address: int) -> int:
        return self.process.pointer(address)

    def type_of(self, address: int) -> int:
        return self.word(address + self.layout.object_type)

    def _check_type(self, address: int, symbol: str) -> None:
        expected = self.symbols.get(symbol)
        if expected is None or self.type_of(address) != expected:
            raise ValueError(f"no {symbol[:-5].lower() if symbol.endswith('_Type') else symbol} at {address:#x}")

    # -- values ------------------------------------------------------------------------------

    def integer(self, address: int) -> int:
        """The int (or bool) at ``address``."""
        if self.type_of(address) not in (self.symbols.get("PyLong_Type"), self.symbols.get("PyBool_Type")):
            raise ValueError(f"no int at {address:#x}")
        head = struct.unpack("<q", self.process.read(address + _LONG_HEAD, 8))[0]
        if self.layout.long_kind == "tag":  # 3.12+: digits << 3 | sign (0 positive, 1 zero, 2 negative)
            digits, sign = head >> 3, 1 - (head & 3)
        else:
            digits, sign = abs(head), (head > 0) - (head < 0)
        if digits > MAX_DIGITS:
            raise ValueError(f"an int of {digits} digits at {address:#x}")
        data = self.process.read(address + _LONG_DIGITS, 4 * digits) if digits else b""
        value = 0
        for index, digit in enumerate(struct.unpack(f"<{digits}I", data)):
            value |= (digit & 0x3FFFFFFF) << (30 * index)
        return sign * value

    def text(self, address: int, limit: int = VALUE_WIDTH) -> tuple[str, bool]:
        """The first ``limit`` characters of the str at ``address``, and whether there were more."""
        layout = self.layout
        head = self.reader._head(address, layout.unicode_compact_size, self.process.unicode_type, "str")
        length = struct.unpack_from("<q", head, layout.unicode_length)[0]
        state = struct.unpack_from("<I", head, layout.unicode_state)[0]
        kind, compact, ascii = (state >> 2) & 7, (state >> 5) & 1, (state >> 6) & 1
        if not compact or kind not in (1, 2, 4) or length < 0:
            raise ValueError(f"an unreadable str at {address:#x}")
        start = address + (layout.unicode_ascii_size if ascii else layout.unicode_compact_size)
        shown = min(length, limit)
        data = self.process.read(start, shown * kind) if shown else b""
        return data.decode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind]), length > shown

    def string(self, address: int) -> str:
        """The whole str at ``address`` (a name: short)."""
        return self.reader.string(address)

    def c_string(self, address: int, limit: int = 200) -> str:
        """A NUL-terminated C string (a type's ``tp_name``), read page by page (its end may be the mapping's)."""
        data = b""
        while len(data) < limit:
            chunk = self.process.read(address + len(data), min(limit - len(data), _PAGE - (address + len(data)) % _PAGE))
            end = chunk.find(b"\0")
            if end >= 0:
                return (data + chunk[:end]).decode(errors="replace")
            data += chunk
        return data.decode(errors="replace")

    def tuple_items(self, address: int) -> list[int]:
        """The addresses of the items of the tuple at ``address``."""
        self._check_type(address, "PyTuple_Type")
        size = struct.unpack("<q", self.process.read(address + _TUPLE_SIZE, 8))[0]
        if not 0 <= size <= MAX_ENTRIES:
            raise ValueError(f"a tuple of {size} items at {address:#x}")
        data = self.process.read(address + _TUPLE_ITEMS, 8 * size) if size else b""
        return list(struct.unpack(f"<{size}Q", data))

    # -- dicts -------------------------------------------------------------------------------

    def dict_items(self, address: int) -> list[tuple[int, int]]:
        """The (key, value) addresses of the dict at ``address``, in insertion order."""
        self._check_type(address, "PyDict_Type")
        return self._items(self.word(address + _DICT_KEYS), self.word(address + _DICT_VALUES))

    def _items(self, keys: int, values: int) -> list[tuple[int, int]]:
        """The entries of a dict's keys object; with ``values`` (a split dict's, or an instance's), the
        values from there."""
        if self.layout.dict_keys == "3.9":
            entries_at, count, width, key_at, value_at = self._keys_39(keys)
        else:
            entries_at, count, width, key_at, value_at = self._keys_311(keys)
        data = self.process.read(entries_at, count * width) if count else b""
        keys_found = [struct.unpack_from("<Q", data, index * width + key_at)[0] for index in range(count)]
        if values:
            if self.layout.dict_values:  # 3.13: a header (capacity first) before the values
                count = min(count, self.process.read(values, 1)[0])
            start = values + self.layout.dict_values
            found = list(struct.unpack(f"<{count}Q", self.process.read(start, 8 * count))) if count else []
        else:
            found = [struct.unpack_from("<Q", data, index * width + value_at)[0] for index in range(count)]
        return [(key, value) for key, value in zip(keys_found, found) if key and value]

    def _keys_39(self, keys: int) -> tuple[int, int, int, int, int]:
        """3.9, 3.10: dk_refcnt, dk_size, dk_lookup, dk_usable, dk_nentries, then dk_indices (1-8 bytes an index by
        the size) and entries of (hash, key, value)."""
        _refs, size, _lookup, _usable, count = struct.unpack("<qqQqq", self.process.read(keys, 40))
        if size <= 0 or size & (size - 1) or size > 4 * MAX_ENTRIES or not 0 <= count <= min(size, MAX_ENTRIES):
            raise ValueError(f"no dict keys at {keys:#x}")
        width = 1 if size <= 0xFF else 2 if size <= 0xFFFF else 4 if size <= 0xFFFFFFFF else 8
        return keys + 40 + size * width, count, 24, 8, 16

    def _keys_311(self, keys: int) -> tuple[int, int, int, int, int]:
        """3.11+: dk_refcnt, dk_log2_size, dk_log2_index_bytes, dk_kind, dk_version, dk_usable, dk_nentries,
        then dk_indices (2**log2_index_bytes bytes) and entries: (hash, key, value), or (key, value) for str keys."""
        head = self.process.read(keys, 32)
        log2_size, log2_index_bytes, kind = head[8], head[9], head[10]
        count = struct.unpack_from("<q", head, 24)[0]
        if kind not in (_GENERAL_KEYS, _UNICODE_KEYS, _SPLIT_KEYS) or log2_size > 30 or not log2_size <= log2_index_bytes <= 33:
            raise ValueError(f"no dict keys at {keys:#x}")
        if not 0 <= count <= min(1 << log2_size, MAX_ENTRIES):
            raise ValueError(f"a dict of {count} entries at {keys:#x}")
        if kind == _GENERAL_KEYS:
            return keys + 32 + (1 << log2_index_bytes), count, 24, 8, 16
        return keys + 32 + (1 << log2_index_bytes), count, 16, 0, 8

    def find(self, items: list[tuple[int, int]], name: str) -> int | None:
        """The value of the str key ``name`` among a dict's ``items`` (None if it has none)."""
        for key, value in items:
            try:
                if self.string(key) == name:
                    return value
            except ValueError:
                continue  # a key that is no str
        return None

    def attributes(self, instance: int) -> list[tuple[int, int]]:
        """The (name, value) addresses of an instance's attributes (its ``__dict__``, wherever this version keeps it)."""
        kind, kind_of = self.type_of(instance), self.layout.instance_dict
        flags = self.word(kind + _TYPE_FLAGS)
        if kind_of != "offset" and flags & _MANAGED_DICT:
            cached_keys = lambda: self.word(kind + self.layout.heaptype_cached_keys)  # noqa: E731
            if kind_of == "managed":  # 3.11: values at -4 words, a dict at -3
                values = self.word(instance - 32)
                if values:
                    return self._items(cached_keys(), values)
                dictionary = self.word(instance - 24)
            elif kind_of == "tagged":  # 3.12: a dict, or values stored as their address - 1 (bit 0 set), at -3 words
                either = self.word(instance - 24)
                if either & 1:
                    return self._items(cached_keys(), either + 1)
                dictionary = either
            else:  # 3.13: a dict at -3 words, else values inline after the object (valid: their 4th byte)
                dictionary = self.word(instance - 24)
                if not dictionary and flags & _INLINE_VALUES:
                    values = instance + self.word(kind + _TYPE_BASICSIZE)
                    return self._items(cached_keys(), values) if self.process.read(values + 3, 1)[0] else []
        else:
            offset = struct.unpack("<q", self.process.read(kind + _TYPE_DICTOFFSET, 8))[0]
            dictionary = self.word(instance + offset) if offset > 0 else 0
        return self.dict_items(dictionary) if dictionary else []

    def module(self, name: str) -> int | None:
        """The address of module ``name``'s globals dict, from the interpreter's ``sys.modules`` (None if not imported)."""
        layout = self.layout
        interpreter = self.word(self.process.runtime + layout.interpreters_head)
        if not interpreter or not layout.interp_modules:
            return None
        modules = self.word(interpreter + layout.interp_modules)
        found = self.find(self.dict_items(modules), name) if modules else None
        if found is None:
            return None
        self._check_type(found, "PyModule_Type")
        return self.word(found + _MODULE_DICT)

    # -- any object, shortly -------------------------------------------------------------------

    def describe(self, address: int, width: int = VALUE_WIDTH) -> str:
        """``repr`` of an int, float, str, bytes, bool or None; ``<type at 0x...>`` for any other object;
        a cell (a variable a closure shares) as its content. At most ``width`` characters (else ending in ...)."""
        symbols = self.symbols
        singletons = {symbols.get("_Py_NoneStruct"): "None", symbols.get("_Py_TrueStruct"): "True"}
        singletons[symbols.get("_Py_FalseStruct")] = "False"
        if address in singletons:
            return singletons[address]
        kind = self.type_of(address)
        if kind == symbols.get("PyCell_Type"):
            content = self.word(address + _CELL_REF)
            return self.describe(content, width) if content else "<empty cell>"
        try:
            shown = self._value(address, kind, width)
        except (OSError, ValueError, UnicodeDecodeError, struct.error):
            shown = None
        if shown is None:
            shown = f"<{self.type_name(kind)} at {address:#x}>"
        return shown if len(shown) <= width else shown[: max(width - 3, 1)] + "..."

    def type_name(self, kind: int) -> str:
        """The ``tp_name`` of the type at ``kind``, once it is known to be a type (its type is ``type``, or a
        metaclass: a subclass of type): a stale pointer's "type" gives a ValueError, not garbage."""
        type_type = self.symbols.get("PyType_Type")
        meta = self.type_of(kind)
        if type_type is not None and meta != type_type:  # a metaclass: an instance of type, and a subclass of it
            if self.type_of(meta) != type_type or not self.word(meta + _TYPE_FLAGS) & _TYPE_SUBCLASS:
                raise ValueError(f"no type at {kind:#x}")
        return self.c_string(self.word(kind + _TYPE_NAME))

    def _value(self, address: int, kind: int, width: int) -> str | None:
        symbols = self.symbols
        if kind == symbols.get("PyLong_Type"):
            return str(self.integer(address))
        if kind == symbols.get("PyFloat_Type"):
            return repr(struct.unpack("<d", self.process.read(address + _FLOAT_VALUE, 8))[0])
        if kind == self.process.unicode_type:
            text, more = self.text(address, width)
            return repr(text) + ("..." if more else "")
        if kind == self.process.bytes_type:
            layout = self.layout
            size = struct.unpack("<q", self.process.read(address + layout.bytes_size, 8))[0]
            data = self.process.read(address + layout.bytes_data, min(max(size, 0), width)) if size > 0 else b""
            return repr(data) + ("..." if size > len(data) else "")
        return None


__all__ = ["MAX_ENTRIES", "ObjectReader", "VALUE_WIDTH"]
