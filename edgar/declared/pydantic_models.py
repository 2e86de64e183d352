"""The pydantic model of a declared model (``edgar.declared``), built on first use; validation.

Guarantees:
- ``model_of(cls)`` is a pydantic v2 model with ``cls``'s name, docstring, fields (types,
  defaults, aliases, ``Field`` constraints), config and ``mode="after"`` validators; a field
  whose type is a declared model (alone, in a ``dict``, a ``list`` or a union) gets that
  model's pydantic model. Built once per class.
- ``validate`` / ``validate_into`` / ``validate_assignment`` raise pydantic's own
  ``ValidationError``; what they return is made of declared models again, never of pydantic's.
"""

from __future__ import annotations

import types
import typing
from typing import Any, TypeVar

from pydantic import BaseModel, create_model
from pydantic import ConfigDict as PydanticConfig
from pydantic import Field as PydanticField
from pydantic import model_validator as pydantic_validator

from edgar.declared import MISSING, Model

M = TypeVar("M", bound=Model)

_MODELS: dict[type[Model], type[BaseModel]] = {}
_DECLARED: dict[type[BaseModel], type[Model]] = {}


def model_of(cls: type[Model]) -> type[BaseModel]:
    """``cls``'s pydantic model (built the first time)."""
    built = _MODELS.get(cls)
    if built is not None:
        return built
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        factory = info.default_factory
        if isinstance(factory, type) and issubclass(factory, Model):
            factory = model_of(factory)
        kwargs: dict[str, Any] = dict(info.constraints)
        if info.alias is not None:
            kwargs["alias"] = info.alias
        if factory is not None:
            field = PydanticField(default_factory=factory, **kwargs)
        else:
            field = PydanticField(... if info.default is MISSING else info.default, **kwargs)
        fields[name] = (_translate(hints[name]), field)
    validators: dict[str, Any] = {name: pydantic_validator(mode="after")(getattr(cls, name))
                                  for name in cls.model_validators}
    # the declared config holds pydantic's ConfigDict keys, checked by pydantic when it builds
    built = create_model(cls.__name__, __config__=PydanticConfig(**cls.model_config),  # type: ignore[typeddict-item]
                         __doc__=cls.__doc__, __module__=cls.__module__,
                         __validators__=validators, **fields)
    _MODELS[cls], _DECLARED[built] = built, cls
    return built


def _translate(hint: Any) -> Any:
    """``hint`` with every declared model in it replaced by its pydantic model."""
    if isinstance(hint, type) and issubclass(hint, Model):
        return model_of(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None or not args or origin is typing.Literal:
        return hint
    new = tuple(_translate(arg) for arg in args)
    if new == args:
        return hint
    if origin in (types.UnionType, typing.Union):
        return typing.Union[new]  # noqa: UP007  (a tuple of types, built at run time)
    return origin[new]


def declared(value: Any) -> Any:
    """A validated value with pydantic's models in it turned into declared ones."""
    if isinstance(value, BaseModel):
        cls = _DECLARED[type(value)]
        return cls.trusted({name: declared(value.__dict__[name]) for name in cls.model_fields},
                           {k: declared(v) for k, v in (value.model_extra or {}).items()},
                           frozenset(value.model_fields_set))
    if isinstance(value, dict):
        return {k: declared(v) for k, v in value.items()}
    if isinstance(value, list):
        return [declared(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    """Input for pydantic: declared models (already valid) as the data they were made from."""
    if isinstance(value, Model):
        return value.model_dump(exclude_unset=True, by_alias=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def validate(cls: type[M], data: Any) -> M:
    made = declared(model_of(cls).model_validate(_plain(data)))
    assert isinstance(made, cls)
    return made


def validate_into(target: Model, values: dict[str, Any]) -> None:
    made = validate(type(target), values)
    target.__dict__.update(made.__dict__)


def _pydantic(value: Any) -> Any:
    """A declared value as pydantic's models, unvalidated (it is valid already)."""
    if isinstance(value, Model):
        made = model_of(type(value)).model_construct()
        made.__dict__.update({name: _pydantic(value.__dict__[name])
                              for name in type(value).model_fields})
        object.__setattr__(made, "__pydantic_fields_set__", set(value.model_fields_set))
        if value.model_extra is not None:
            object.__setattr__(made, "__pydantic_extra__",
                               {k: _pydantic(v) for k, v in value.model_extra.items()})
        return made
    if isinstance(value, dict):
        return {k: _pydantic(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_pydantic(v) for v in value]
    return value


def validate_assignment(target: Model, name: str, value: Any) -> Any:
    """``value`` as pydantic's ``validate_assignment`` makes it (its validators run again)."""
    model = model_of(type(target))
    shadow = _pydantic(target)
    model.__pydantic_validator__.validate_assignment(shadow, name, _plain(value))
    if name in type(target).model_fields:
        return declared(shadow.__dict__[name])
    return declared((shadow.model_extra or {})[name])


def declared_of(model: Any) -> type[Model] | None:
    """The declared model a pydantic model was built from (``model_of``), or None."""
    return _DECLARED.get(model) if isinstance(model, type) else None
