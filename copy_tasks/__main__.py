"""`python -m copy_tasks` (and `accelerate launch -m copy_tasks run ...`)."""

from copy_tasks.cli import main

if __name__ == "__main__":  # not when `copy-tasks train`'s worker processes import the main module
    main()
