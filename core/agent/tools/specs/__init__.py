"""The tools' specs, one module per family: data the registry holds without importing the tools' code."""
