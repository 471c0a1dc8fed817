"""Record classes (fields, defaults, __init__, ==, repr, hash) without importing dataclasses.

``dataclasses`` imports ``inspect`` (and with it ast, dis, tokenize): about 10 ms, more
than a whole ``flamespace svg`` of a small profile spends on its work. The option and
metadata classes on that path are declared with :func:`record` instead, with the same
meaning as ``@dataclass(frozen=...)``: fields are the annotated class attributes in order,
a class attribute is the default, :func:`factory` gives a fresh mutable default per
instance, ``__post_init__`` runs after ``__init__``; methods the class defines itself win.
Instances have ``__slots__`` and, when frozen, refuse assignment and hash by their fields.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, ClassVar, TypeVar, overload

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
    C = TypeVar("C", bound=type)


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record (as ``dataclasses.FrozenInstanceError``)."""


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def factory(make: Callable[[], Any]) -> Any:
    """A default made fresh for each instance, as ``dataclasses.field(default_factory=make)``."""
    return _Factory(make)


_MISSING = object()


if TYPE_CHECKING:
    # What type checkers see (PEP 681, as attrs declares its decorators): the generated
    # __init__, ==, frozenness. Not at run time: typing costs an import on the start-up path.
    # `factory` is deliberately no field specifier: it is a default like any other (Any).
    @overload
    def record(cls: C, /) -> C: ...
    @overload
    def record(cls: None = None, /, *, frozen: bool = True) -> Callable[[C], C]: ...
    @dataclass_transform(frozen_default=True)
    def record(cls: type | None = None, /, *, frozen: bool = True) -> Any: ...

    class Record:
        """The methods :func:`record` adds besides ``__init__``, for type checkers: every
        record class lists it as a base (at run time ``Record`` is ``object``)."""

        __record_fields__: ClassVar[tuple[str, ...]]

        def replace(self: T, **changes: Any) -> T: ...

else:

    def record(cls=None, *, frozen=True):
        """Turn ``cls`` into a record class; ``@record`` or ``@record(frozen=False)``."""
        if cls is None:
            return lambda c: _build(c, frozen)
        return _build(cls, frozen)

    Record = object


def fields(cls: type) -> tuple[str, ...]:
    """The field names of a record class, in order."""
    names: tuple[str, ...] = getattr(cls, "__record_fields__")
    return names


def defaults(cls: type) -> dict[str, Any]:
    """The default of every field of a record class that has one (a factory's made afresh): what
    option tables (the CLI's) read, so that each default is written down once, in the class."""
    made: dict[str, Any] = getattr(cls, "__record_defaults__")
    return {n: (d.make() if isinstance(d, _Factory) else d) for n, d in made.items()}


def _build(cls: type, frozen: bool) -> type:
    own = tuple(n for n in cls.__dict__.get("__annotations__", {}) if not n.startswith("__"))
    inherited, defaults = _inherited(cls)
    names = inherited + tuple(n for n in own if n not in inherited)
    body = {k: v for k, v in cls.__dict__.items() if k not in own and k not in ("__dict__", "__weakref__")}
    defaults.update({n: cls.__dict__[n] for n in own if n in cls.__dict__})
    post_init = hasattr(cls, "__post_init__")
    body["__init__"] = _init(cls.__name__, names, tuple(defaults.get(n, _MISSING) for n in names), post_init)
    body["__slots__"] = tuple(n for n in own if n not in inherited)
    body["__record_fields__"] = names
    body["__record_defaults__"] = defaults
    for method, make in (("__eq__", _eq), ("__repr__", _repr), ("replace", _replace), ("__reduce__", _reduce)):
        body.setdefault(method, make(names))
    explicit = cls.__dict__.get("__hash__", _MISSING)
    has_hash = not (explicit is _MISSING or (explicit is None and "__eq__" in cls.__dict__))
    if frozen:
        body.setdefault("__setattr__", _refuse)
        body.setdefault("__delattr__", _refuse)
        if not has_hash:
            body["__hash__"] = lambda self: hash(tuple(getattr(self, n) for n in names))
    elif not has_hash:
        body["__hash__"] = None  # mutable and compared by value: unhashable, as a dataclass
    built = type(cls)(cls.__name__, cls.__bases__, body)
    built.__qualname__ = cls.__qualname__
    return built


def _inherited(cls: type) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The fields and defaults ``cls`` inherits from record bases, base fields first (as a
    dataclass's: a field redeclared below keeps its place and takes the new default). A
    subclass's ``__post_init__`` calls its base's by name (``Base.__post_init__(self)``): the
    class is rebuilt, so ``super()`` without arguments would name the class before it was."""
    names: tuple[str, ...] = ()
    defaults: dict[str, Any] = {}
    for base in reversed(cls.__mro__[1:]):
        fields_of_base = base.__dict__.get("__record_fields__", ())
        names += tuple(n for n in fields_of_base if n not in names)
        defaults.update(base.__dict__.get("__record_defaults__", {}))
    return names, defaults


def _init(class_name: str, names: tuple[str, ...], made: tuple[Any, ...], post_init: bool) -> Callable[..., None]:
    """``__init__(self, *fields, **fields)``, by a closure rather than generated source (as
    dataclasses does): a process's first ``compile()`` costs about a millisecond, more than
    the records' calls ever save, and the profiled child builds one (collect/options.py)."""
    count, _set = len(names), object.__setattr__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > count:
            raise TypeError(f"{class_name}() takes {count} positional arguments but {len(args)} were given")
        for index, name in enumerate(names):
            if index < len(args):
                if name in kwargs:
                    raise TypeError(f"{class_name}() got multiple values for argument {name!r}")
                value = args[index]
            elif name in kwargs:
                value = kwargs.pop(name)
            else:
                value = made[index]
                if value is _MISSING:
                    raise TypeError(f"{class_name}() missing required argument: {name!r}")
                if value.__class__ is _Factory:
                    value = value.make()
            _set(self, name, value)
        if kwargs:
            raise TypeError(f"{class_name}() got an unexpected keyword argument {next(iter(kwargs))!r}")
        if post_init:
            self.__post_init__()

    return __init__


def _eq(names: tuple[str, ...]) -> Callable[[Any, object], Any]:
    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in names)

    return __eq__


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _replace(names: tuple[str, ...]) -> Callable[..., Any]:
    def replace(self: T, **changes: Any) -> T:
        """A copy with ``changes`` (as ``dataclasses.replace``: checked again by ``__init__``)."""
        unknown = set(changes) - set(names)
        if unknown:
            raise TypeError(f"{self.__class__.__name__} has no field {sorted(unknown)[0]!r}")
        values = {n: getattr(self, n) for n in names}
        values.update(changes)
        return self.__class__(**values)

    return replace


def _reduce(names: tuple[str, ...]) -> Callable[[Any], Any]:
    def __reduce__(self: Any) -> Any:  # copy and pickle through __init__ (slots and frozen)
        return self.__class__, tuple(getattr(self, n) for n in names)

    return __reduce__


def _refuse(self: Any, name: str, value: Any = None) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")
