"""What every system shares, and nothing system-specific: models, results, report, runtime."""
