"""Inputs for a generated format (fuzz/specs/specfuzz.py): mutants of the
files its writer wrote, and random bytes."""

INTERESTING = [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF, ord("b"), ord(" "), ord("{"), ord("\n")]


def mutant(rng, data):
    """One mutation of data: a flipped bit, an interesting byte, a run of
    0xff (a huge length or count), a cut, a duplicated or deleted chunk,
    trailing bytes."""
    b = bytearray(data)
    r = rng.random()
    if not b:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    i = rng.randrange(len(b))
    if r < 0.25:
        b[i] ^= 1 << rng.randrange(8)
    elif r < 0.45:
        b[i] = rng.choice(INTERESTING)
    elif r < 0.55:
        for k in range(i, min(len(b), i + rng.choice([2, 4, 8]))):
            b[k] = 0xFF
    elif r < 0.7:
        del b[rng.randrange(len(b) + 1):]
    elif r < 0.8:
        j = min(len(b), i + rng.randint(1, 16))
        b[i:i] = b[i:j]
    elif r < 0.9:
        del b[i:i + rng.randint(1, 8)]
    else:
        b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(b)


def random_bytes(rng):
    return bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 3, 8, 17, 64, 200])))
