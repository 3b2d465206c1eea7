"""Calls of a generated client that must type-check under ``mypy --strict`` with no cast:
tests/contract/test_python_client.py generates ``three_thirteen_client`` and checks this file
against it, and runs the records' calls against the app. A document that gives a view's rules or
its ``legal`` entries other classes than the requests take, answers a record in another schema
than the import takes, or makes a public read need a token, fails it."""

from io import BytesIO

from three_thirteen_client import AuthenticatedClient, Client
from three_thirteen_client.api.analysis import analyse_hand
from three_thirteen_client.api.games import apply_action, get_game, get_game_log
from three_thirteen_client.api.records import get_game_record, import_record
from three_thirteen_client.models import AnalyseRequest, GameView, RecordImported, RecordJson
from three_thirteen_client.types import File


def play_a_legal_action(url: str, game_id: str, token: str) -> GameView | None:
    anonymous = Client(base_url=url)
    public = get_game.sync(game_id, client=anonymous)
    get_game_log.sync(game_id, client=anonymous)
    if not isinstance(public, GameView):
        return None
    # A view's rules, accepted by the analyser as they are.
    analyse_hand.sync(
        client=anonymous, body=AnalyseRequest(hand=["4H", "8S"], round_=1, rules=public.rules)
    )
    seat = AuthenticatedClient(base_url=url, token=token)
    view = get_game.sync(game_id, client=seat)
    if not isinstance(view, GameView) or not view.legal:
        return None
    # An entry of `legal`, posted as it is.
    answer = apply_action.sync(game_id, client=seat, body=view.legal[0])
    return answer if isinstance(answer, GameView) else None


def import_a_fetched_record(url: str, game_id: str) -> RecordImported | None:
    """A finished game's record, fetched and posted back as it is: one model both ways."""
    anonymous = Client(base_url=url)
    record = get_game_record.sync(game_id, client=anonymous)
    if not isinstance(record, RecordJson):
        return None
    answer = import_record.sync(client=anonymous, body=record)
    return answer if isinstance(answer, RecordImported) else None


def import_a_record_s_text(url: str, game_id: str) -> RecordImported | None:
    """The text notation, fetched through the client's own httpx client (the generator parses a
    200 by its first media type, JSON here) and posted as a ``File``."""
    anonymous = Client(base_url=url)
    text = anonymous.get_httpx_client().get(
        f"/v1/games/{game_id}/record", headers={"Accept": "text/plain"}
    )
    answer = import_record.sync(client=anonymous, body=File(payload=BytesIO(text.content)))
    return answer if isinstance(answer, RecordImported) else None
