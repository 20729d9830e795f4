"""Crazy Rummy (game id ``crazy-rummy``): the rules engine of spec Part A.

* :mod:`.rules`: the switch table and the ``standard`` preset (:class:`CrazyRummyRules`);
* :mod:`.state`: the match (:class:`CrazyRummyState`), with the rules and engine decisions;
* :mod:`.actions`: the action tuple and its text and JSON forms;
* :mod:`.table`: the table phase (melds, lay-offs, wild exchanges);
* :mod:`.scoring`: the points of a deal and the final places;
* :mod:`.views`: what one seat may know; :mod:`.position`: arranged positions for tests, and
  redealing the cards a seat cannot see.

The meld rules and the meld finder live in :mod:`talon_sdk.melds`, shared with bots.
"""
