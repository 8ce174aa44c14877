"""How copy-tasks reads an on/off environment variable (the start-up hook's, the task-index
cache's): 0, false, no and off, in any case and spacing, switch it off. Imports nothing."""

OFF_VALUES = frozenset({"0", "false", "no", "off"})


def switched_off(value: str | None) -> bool:
    """Whether the environment variable's value switches the hook off.

    >>> [switched_off(value) for value in ("0", " OFF ", "No", "false", "1", "", None)]
    [True, True, True, True, False, False, False]
    """
    return (value or "").strip().lower() in OFF_VALUES
