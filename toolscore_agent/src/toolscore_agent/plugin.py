"""Hook implementations of toolscore-agent.

The agent harness (providers, guards, budget, studies) has not landed yet, so this
distribution declares no entry points and registers nothing. When it does, this module is
the only one its entry points name, and it imports no SDK at its top.
"""
