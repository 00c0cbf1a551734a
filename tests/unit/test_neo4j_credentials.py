"""The launcher's generated passwords (kalma_graph.neo4j_server.credentials)."""

from __future__ import annotations

import secrets

from kalma_graph.neo4j_server import credentials


def test_a_generated_password_never_starts_with_a_dash(monkeypatch):
    """neo4j-admin reads `-…` as an option: `set-initial-password -x…` failed with "Missing required parameter"
    (a full test run drew such a password, 1 start in 64)."""
    drawn = iter(["-leading-dash-reads-as-an-option", "Zq3-fine_password_of_32_characters"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert credentials.generate_password() == "Zq3-fine_password_of_32_characters"


def test_a_generated_password_is_long_and_url_safe():
    password = credentials.generate_password()
    assert (len(password) == 32
            and set(password) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"))
