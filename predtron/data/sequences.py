"""A seeded generator of OCR-like sequence data for the chain problem (UML Section 17.3).

Each letter has a prototype image of ``n`` pixels in ``{-1, +1}``; words are drawn from
a Markov chain over letters whose transition matrix favours a few successors; each
position's image is the prototype of its letter plus Gaussian pixel noise.  Both the
emission block and the transition block of the chain's feature map therefore carry
information, and with large noise the transitions are needed to read the word.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from predtron._validation import MAX_CLASSES, MAX_DENSE_ENTRIES, check_int, check_positive, check_seed, check_size


class SequenceData(NamedTuple):
    """Sequence data and the model that generated it.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_pixels, length)
        One ``n x r`` image matrix per word, a column per position.
    Y : ndarray of shape (n_samples, length)
        The words, letters ``0..q-1``.
    prototypes : ndarray of shape (n_letters, n_pixels)
        The clean image of each letter.
    transitions : ndarray of shape (n_letters, n_letters)
        ``transitions[a, b]``: probability that letter ``b`` follows letter ``a``.
    """

    X: np.ndarray
    Y: np.ndarray
    prototypes: np.ndarray
    transitions: np.ndarray


def make_sequences(n_samples: int, length: int, n_letters: int, n_pixels: int, noise: float = 0.5,
                   stickiness: float = 5.0, seed: int = 0) -> SequenceData:
    """Draw ``n_samples`` noisy words from a random letter model.

    Parameters
    ----------
    n_samples : int
        Number of words.
    length : int
        ``r``, letters per word.
    n_letters : int
        ``q``, alphabet size (at least 2).
    n_pixels : int
        ``n``, pixels per letter image.
    noise : float
        Standard deviation of the Gaussian pixel noise (``>= 0``).
    stickiness : float
        Concentration of the transition matrix: each row is a softmax of standard
        Gaussians times ``stickiness`` (0 gives uniform transitions).
    seed : int
        Seed of every draw.
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1, maximum=MAX_DENSE_ENTRIES)
    length = check_int(length, "length", minimum=1, maximum=MAX_DENSE_ENTRIES)
    n_letters = check_int(n_letters, "n_letters", minimum=2, maximum=MAX_CLASSES)
    n_pixels = check_int(n_pixels, "n_pixels", minimum=1, maximum=MAX_DENSE_ENTRIES)
    check_size("n_samples x n_pixels x length", n_samples, n_pixels, length)
    check_size("n_letters x n_pixels", n_letters, n_pixels)
    noise = check_positive(noise, "noise", allow_zero=True, maximum=1e50)
    stickiness = check_positive(stickiness, "stickiness", allow_zero=True, maximum=700.0)
    rng = np.random.default_rng(check_seed(seed))
    prototypes = rng.choice([-1.0, 1.0], size=(n_letters, n_pixels))
    logits = stickiness * rng.standard_normal((n_letters, n_letters))
    transitions = np.exp(logits - logits.max(axis=1, keepdims=True))
    transitions /= transitions.sum(axis=1, keepdims=True)
    Y = np.zeros((n_samples, length), dtype=np.int64)
    Y[:, 0] = rng.integers(0, n_letters, n_samples)
    cumulative = np.cumsum(transitions, axis=1)
    for s in range(1, length):
        u = rng.random(n_samples)
        nxt = (u[:, None] > cumulative[Y[:, s - 1]]).sum(axis=1)
        Y[:, s] = np.minimum(nxt, n_letters - 1)
    X = prototypes[Y].transpose(0, 2, 1) + noise * rng.standard_normal((n_samples, n_pixels, length))
    return SequenceData(X=X, Y=Y, prototypes=prototypes, transitions=transitions)
