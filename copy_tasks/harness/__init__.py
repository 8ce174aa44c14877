"""The harness layer: everything that touches lm-eval. The task class and the functions the
task YAMLs name, the start-up hook that registers our tasks, the option checks on lm-eval's
command line, what a backend cuts, and the YAML generator. Every private name of lm-eval it
uses is in `lm_eval_internals`."""
