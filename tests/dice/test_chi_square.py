"""The distribution of 1,000,000 derived dice (docs/architecture.md section 8): a chi-square
goodness of fit test against a fair D6, at p = 0.001 with 5 degrees of freedom (critical value
20.515)."""

from __future__ import annotations

import hashlib
import hmac

from hulldown.rules.dice import derive_die

CRITICAL_P001_DOF5 = 20.515
N = 1_000_000


def test_a_million_dice_pass_a_chi_square_test() -> None:
    seed = hashlib.sha256(b"hulldown chi-square seed").digest()
    counts = [0] * 7
    # 1000 events of 1000 dice each: every die goes through derive_die exactly as the reducer's.
    for seq in range(1, 1001):
        for i in range(1000):
            counts[derive_die(seed, "chi-square", seq, i)] += 1
    assert counts[0] == 0 and sum(counts) == N
    expected = N / 6
    chi2 = sum((observed - expected) ** 2 / expected for observed in counts[1:])
    assert chi2 < CRITICAL_P001_DOF5, (chi2, counts)
    # Each face within 0.5% of its expectation (5.3 standard deviations).
    assert all(abs(observed - expected) < 0.005 * expected for observed in counts[1:])


def test_rejection_sampling_has_no_modulo_bias() -> None:
    """Bytes 252..255 are rejected, so each face keeps 42 of the 252 accepted byte values; a
    byte stream that starts with rejected bytes falls through to the next one."""
    seed = b"\x00" * 32
    for seq in range(1, 2000):
        message = f"m:{seq}:0:".encode()
        digest = hmac.new(seed, message, hashlib.sha256).digest()
        first_ok = next((b for b in digest if b < 252), None)
        if first_ok is not None:
            assert derive_die(seed, "m", seq, 0) == first_ok % 6 + 1
    assert sorted({v % 6 + 1 for v in range(252)}) == [1, 2, 3, 4, 5, 6]
    assert all(sum(1 for v in range(252) if v % 6 + 1 == face) == 42 for face in range(1, 7))
