"""`python -m copy_tasks` (and `accelerate launch -m copy_tasks run ...`)."""

from copy_tasks.cli import main

main()
