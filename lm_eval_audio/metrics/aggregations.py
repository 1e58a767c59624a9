"""Aggregations the task YAMLs name through their folder's ``utils.py``."""

from __future__ import annotations


def count(items) -> int:
    """How many documents have the property a per-document 0/1 (or count) marks."""
    return int(sum(items))
