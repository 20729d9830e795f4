"""Talon's bot SDK: cards, views and the client that plays a seat at the referee."""
