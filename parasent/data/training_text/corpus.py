"""Running text as documents of ordered sentences (the training data of Siamese CBOW).

Three layouts cover the shared ``corpus/`` folders and most plain-text releases:

- ``sentences``: one sentence per line, in document order (the movie reviews);
- ``wrapped``: hard-wrapped prose, paragraphs separated by blank lines (Gutenberg books);
- ``paragraphs``: one paragraph per line (the State of the Union addresses).

A file is a document; ``wrapped`` and ``paragraphs`` text is split into sentences by
:func:`parasent.text.sentences.split_sentences`. Sentence order inside a document is kept:
Siamese CBOW predicts a sentence's neighbours, and never crosses a document boundary.
Files are UTF-8; a line that is not (old releases mix encodings) is decoded as Latin-1 and
counted in the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from parasent.data.registry.catalog import CORPORA, CORPUS_SOURCES
from parasent.data.training_text.leakage import guard_note, normalize_for_leakage
from parasent.errors import DataNotFoundError
from parasent.support.lines import LineReader, ReadReport
from parasent.text.sentences import paragraphs_by_blank_lines, paragraphs_by_lines, split_sentences


def _one_per_line(lines: Iterable[str]) -> list[str]:
    return [" ".join(line.split()) for line in lines if line.strip()]


def _split(paragraphs: Iterable[str]) -> list[str]:
    return [s for paragraph in paragraphs for s in split_sentences(paragraph)]


#: A layout's lines -> its sentences, in order.
SENTENCES_OF: dict[str, Callable[[Iterable[str]], list[str]]] = {
    "sentences": _one_per_line,
    "wrapped": lambda lines: _split(paragraphs_by_blank_lines(lines)),
    "paragraphs": lambda lines: _split(paragraphs_by_lines(lines)),
}
LAYOUTS = tuple(SENTENCES_OF)
FALLBACK_ENCODING = "latin-1"


@dataclass(frozen=True)
class Document:
    """A named document: its sentences in order."""

    name: str
    sentences: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.sentences)


def read_document(path: str | Path, layout: str, *, report: ReadReport | None = None) -> Document:
    """One file as a document of sentences (see the module docstring for the layouts)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown corpus layout {layout!r} (known: {', '.join(LAYOUTS)})")
    reader = LineReader(path, report=report, fallback_encoding=FALLBACK_ENCODING)
    sentences = SENTENCES_OF[layout](text for _, text in reader)
    return Document(Path(path).name, tuple(sentences))


@dataclass
class CorpusReport:
    """What was read, per source, and what was dropped."""

    documents: Counter = field(default_factory=Counter)
    sentences: Counter = field(default_factory=Counter)
    words: Counter = field(default_factory=Counter)  # whitespace-separated, before tokenization
    leaked: Counter = field(default_factory=Counter)
    recoded_lines: int = 0

    def summary(self) -> str:
        lines = [f"{'source':<16} {'documents':>9} {'sentences':>9} {'words':>10} {'leaked':>7}"]
        for source in self.documents:
            lines.append(
                f"{source:<16} {self.documents[source]:>9} {self.sentences[source]:>9} "
                f"{self.words[source]:>10} {self.leaked[source]:>7}"
            )
        lines.append(
            f"dropped {sum(self.leaked.values())} sentence(s) equal to an evaluation/validation sentence; "
            f"{self.recoded_lines} non-UTF-8 line(s) read as {FALLBACK_ENCODING}; kept "
            f"{sum(self.sentences.values())} sentences in {sum(self.documents.values())} documents"
        )
        notes = (
            guard_note(s, self.leaked[s], self.sentences[s] + self.leaked[s], "sentence(s)")
            for s in self.documents
        )
        lines.extend(note for note in notes if note)
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "documents": dict(self.documents),
            "sentences": dict(self.sentences),
            "words": dict(self.words),
            "leaked": dict(self.leaked),
            "recoded_lines": self.recoded_lines,
        }


def corpus_files(data_dir: str | Path, spec: str) -> list[tuple[str, Path, str]]:
    """``(source, path, layout)`` of every file of ``spec``, in a deterministic order.

    ``spec`` is a named corpus (:data:`CORPORA`), or ``PATH[:LAYOUT]`` for a user's own text:
    a file or a directory (every ``*.txt`` / ``*.txt.gz`` below it); the layout defaults to
    ``sentences``.
    """
    root = Path(data_dir)
    if spec in CORPORA:
        files = []
        for name in CORPORA[spec]:
            source = CORPUS_SOURCES[name]
            files += [(name, path, source.layout) for path in source.paths(root)]
        return files
    path_text, layout = spec, "sentences"
    head, sep, tail = spec.rpartition(":")
    if sep and tail in LAYOUTS:
        path_text, layout = head, tail
    path = Path(path_text).expanduser()
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith((".txt", ".txt.gz")))
        if not found:
            raise DataNotFoundError(f"corpus directory {path}: no *.txt or *.txt.gz files")
        return [(path.name, p, layout) for p in found]
    if path.is_file():
        return [(path.name, path, layout)]
    if sep and Path(head).expanduser().exists():  # mine.txt:lines
        raise DataNotFoundError(f"corpus {spec!r}: unknown layout {tail!r} (known: {', '.join(LAYOUTS)})")
    raise DataNotFoundError(
        f"corpus {spec!r}: neither a named corpus ({', '.join(CORPORA)}) nor an existing file or directory"
    )


def read_corpus(
    data_dir: str | Path, spec: str = "standard", *, forbidden: set[str] | None = None
) -> tuple[list[Document], CorpusReport]:
    """The documents of a corpus, with every sentence whose normalised text is in ``forbidden``
    (evaluation sentences, the no-leakage rule) removed; its neighbours become adjacent."""
    report = CorpusReport()
    documents = []
    for source, path, layout in corpus_files(data_dir, spec):
        read = ReadReport()
        document = read_document(path, layout, report=read)
        report.recoded_lines += read.recoded
        kept = document.sentences
        if forbidden:
            kept = tuple(s for s in kept if normalize_for_leakage(s) not in forbidden)
            report.leaked[source] += len(document.sentences) - len(kept)
        else:
            report.leaked[source] += 0
        report.documents[source] += 1
        report.sentences[source] += len(kept)
        report.words[source] += sum(len(s.split()) for s in kept)
        documents.append(Document(f"{source}/{document.name}", kept))
    return documents, report


def iter_sentences(documents: Iterable[Document]) -> Iterator[str]:
    for document in documents:
        yield from document.sentences
