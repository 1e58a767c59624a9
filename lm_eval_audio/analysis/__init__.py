"""Reading finished runs: diagnose (text prior, fragment reliance), report (tables, intervals, plots), rejudge (the `lm-eval-audio judge` command) and their statistics."""
