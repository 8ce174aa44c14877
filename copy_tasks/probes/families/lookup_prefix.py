"""`lookup_prefix`: the letters after a key, the key given before the string (`copy_tasks.probes.lookup`)."""

from copy_tasks.probes.family import register
from copy_tasks.probes.lookup import lookup_family

FAMILY = register(lookup_family("prefix"))
