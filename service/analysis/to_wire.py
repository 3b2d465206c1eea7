"""Engine → wire for an analysis: ``engine.analysis``'s document in ``service.analysis.wire``'s
structs."""

from __future__ import annotations

import engine
from engine.analysis import build_document
from service.analysis.wire import AnalyseResponse, DiscardOut
from service.vocabulary.wire import MeldOut


def analysis_to_wire(analysis: engine.Analysis) -> AnalyseResponse:
    """The analysis in its wire structs, shaped by the engine's one definition of the document
    (the structs are its constructors: a field either side lacks fails at once)."""
    return build_document(analysis, AnalyseResponse, MeldOut, DiscardOut)
