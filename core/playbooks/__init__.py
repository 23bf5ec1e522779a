"""Playbooks (PB): lessons kept as Markdown, recalled as skills, promoted by the user, demoted by their record."""
