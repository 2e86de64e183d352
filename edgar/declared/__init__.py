"""Models declared like pydantic's and built without it; pydantic validates them, on demand.

A class is written as a pydantic model is (``name: type = Field(default, ge=…)``, a
``model_config = ConfigDict(…)``, ``@model_validator(mode="after")``), but defining it imports
no pydantic: a start that only reads already-validated values never pays pydantic's ~100 ms
import and its model builds (issue 26, ADR-0081). ``edgar.declared.pydantic_models`` builds
the equivalent pydantic model the first time something must be validated.

Guarantees:
- Everything that takes values from outside is validated by pydantic, with pydantic's own
  errors (``pydantic.ValidationError``): ``Model(**values)`` with values, ``model_validate``,
  and every assignment (``validate_assignment`` semantics: a wrong type, a value out of range
  or a misspelt attribute is an error, and ``mode="after"`` validators run again).
- ``Model()`` with no values, ``Field(default_factory=…)`` and ``trusted(values)`` (values
  that pydantic validated before) import no pydantic.
- An instance behaves as the pydantic model's would for what edgar uses: attribute access,
  ``model_copy(update=…, deep=…)`` (not validated, as pydantic's), ``model_dump(exclude_unset=…)``,
  ``model_fields_set``, extra keys kept when ``extra="allow"``, equality, ``repr``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, ClassVar, Literal, TypeVar

__all__ = ["MISSING", "ConfigDict", "Field", "FieldInfo", "Model", "declared_class",
           "model_validator"]

F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound="Model")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()   # no default: the field is required


class FieldInfo:
    """One declared field: its default (or factory), alias and pydantic ``Field`` constraints."""

    __slots__ = ("default", "default_factory", "alias", "constraints")

    def __init__(self, default: Any = MISSING, default_factory: Callable[[], Any] | None = None,
                 alias: str | None = None, constraints: dict[str, Any] | None = None):
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.constraints = constraints or {}

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.default_factory is None

    def make_default(self) -> Any:
        if self.default_factory is not None:
            return self.default_factory()
        if isinstance(self.default, (list, dict, set)):
            return copy.copy(self.default)
        return self.default


def Field(default: Any = MISSING, *, default_factory: Callable[[], Any] | None = None,  # noqa: N802
          alias: str | None = None, **constraints: Any) -> Any:
    """pydantic's ``Field``, recorded: ``gt``, ``le``, ``max_length``, ``description``, …"""
    return FieldInfo(default, default_factory, alias, constraints)


def ConfigDict(**options: Any) -> dict[str, Any]:  # noqa: N802
    """pydantic's ``ConfigDict``, recorded: ``extra``, ``strict``, ``validate_assignment``, …"""
    return options


def model_validator(*, mode: Literal["after"]) -> Callable[[F], F]:
    """pydantic's ``model_validator(mode="after")``: the method gets the validated model."""
    def mark(fn: F) -> F:
        setattr(fn, "__edgar_model_validator__", mode)  # noqa: B010  (a mark on a function)
        return fn
    return mark


_CLASSES: dict[str, type[Model]] = {}   # "module.QualName" -> class, as the cache names them


def declared_class(name: str) -> type[Model] | None:
    """The declared model class called ``module.QualName``, if it has been defined."""
    return _CLASSES.get(name)


def _bridge() -> Any:
    from edgar.declared import pydantic_models

    return pydantic_models


class Model:
    """Base of a declared model; see the module's guarantees."""

    model_config: ClassVar[dict[str, Any]] = {}
    model_fields: ClassVar[dict[str, FieldInfo]] = {}
    model_validators: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = dict(cls.model_fields)          # inherited ones first, as pydantic orders them
        for name, hint in cls.__dict__.get("__annotations__", {}).items():
            if name.startswith("_") or "ClassVar" in str(hint):
                continue
            value = cls.__dict__.get(name, MISSING)
            fields[name] = value if isinstance(value, FieldInfo) else FieldInfo(value)
            if name in cls.__dict__:
                delattr(cls, name)               # an instance always holds its own value
        cls.model_fields = fields
        _CLASSES[f"{cls.__module__}.{cls.__qualname__}"] = cls
        cls.model_validators = tuple(
            {*cls.model_validators, *(name for name, fn in cls.__dict__.items()
                                      if getattr(fn, "__edgar_model_validator__", None))})

    def __init__(self, **values: Any) -> None:
        if values:       # from a caller: pydantic checks them
            _bridge().validate_into(self, values)
        else:            # the declared defaults: nothing to check
            _fill(self, {}, frozenset(), {})

    @classmethod
    def model_validate(cls: type[M], data: Any) -> M:
        """``data`` validated by pydantic (``pydantic.ValidationError`` when it is not valid)."""
        return _bridge().validate(cls, data)

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """pydantic's JSON Schema of this model (builds it: imports pydantic)."""
        schema: dict[str, Any] = _bridge().model_of(cls).model_json_schema()
        return schema

    @classmethod
    def trusted(cls: type[M], values: dict[str, Any], extra: dict[str, Any] | None = None,
                fields_set: frozenset[str] | None = None) -> M:
        """An instance of values pydantic validated before (nested models already built);
        the fields not given take their defaults; "set" are ``fields_set`` (default: those
        given)."""
        made = cls.__new__(cls)
        _fill(made, values, frozenset(values) if fields_set is None else fields_set, extra or {})
        return made

    @property
    def model_fields_set(self) -> frozenset[str]:
        return self.__dict__["_fields_set"]

    @property
    def model_extra(self) -> dict[str, Any] | None:
        return dict(self.__dict__["_extra"]) if self.model_config.get("extra") == "allow" else None

    def __getattr__(self, name: str) -> Any:
        extra = self.__dict__.get("_extra")
        if extra and name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        checked = _bridge().validate_assignment(self, name, value)
        own = self.__dict__
        if name in self.model_fields:
            own[name] = checked
        else:
            own["_extra"][name] = checked
        own["_fields_set"] = own["_fields_set"] | {name}

    def model_copy(self: M, *, update: dict[str, Any] | None = None, deep: bool = False) -> M:
        made = type(self).__new__(type(self))
        state = copy.deepcopy(self.__dict__) if deep else dict(self.__dict__)
        state["_extra"] = dict(state["_extra"])
        for name, value in (update or {}).items():
            if name in self.model_fields:
                state[name] = value
            else:
                state["_extra"][name] = value
        state["_fields_set"] = state["_fields_set"] | set(update or ())
        made.__dict__.update(state)
        return made

    def model_dump(self, *, exclude_unset: bool = False, by_alias: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, info in self.model_fields.items():
            if exclude_unset and name not in self.model_fields_set:
                continue
            out[info.alias if by_alias and info.alias else name] = _dump(
                self.__dict__[name], exclude_unset, by_alias)
        for name, value in self.__dict__["_extra"].items():
            out[name] = _dump(value, exclude_unset, by_alias)
        return out

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(self.__dict__[n] == other.__dict__[n] for n in (*self.model_fields, "_extra"))

    # unhashable: mutable, as pydantic's models are (object declares __hash__ as a method)
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        values = [f"{n}={self.__dict__[n]!r}" for n in self.model_fields]
        values += [f"{n}={v!r}" for n, v in self.__dict__["_extra"].items()]
        return f"{type(self).__name__}({', '.join(values)})"


def _fill(model: Model, values: dict[str, Any], fields_set: frozenset[str],
          extra: dict[str, Any]) -> None:
    own = model.__dict__
    for name, info in model.model_fields.items():
        own[name] = values[name] if name in values else info.make_default()
    own["_fields_set"] = fields_set
    own["_extra"] = dict(extra)


def _dump(value: Any, exclude_unset: bool, by_alias: bool) -> Any:
    if isinstance(value, Model):
        return value.model_dump(exclude_unset=exclude_unset, by_alias=by_alias)
    if isinstance(value, dict):
        return {k: _dump(v, exclude_unset, by_alias) for k, v in value.items()}
    if isinstance(value, list):
        return [_dump(v, exclude_unset, by_alias) for v in value]
    return value
