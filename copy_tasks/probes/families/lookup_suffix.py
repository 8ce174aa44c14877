"""`lookup_suffix`: the letters after a key, the key given after the string (`copy_tasks.probes.lookup`)."""

from copy_tasks.probes.family import register
from copy_tasks.probes.lookup import lookup_family

FAMILY = register(lookup_family("suffix"))
