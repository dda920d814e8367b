/* compile with: -O3 */
/* The 9x9 batch kernel of the bit-set method in C: built with the package (setup.py; -O3 is about
 * 20 % faster than -O2 here), loaded by solvers/bitset9_native.py and called through ctypes
 * (which releases the GIL), one call for a whole array of puzzles (uint8 [P, 81], 0 = empty), no Python object per puzzle.
 *
 * Representation (band-oriented): the grid is three bands of three rows; for each digit d and
 * band b one 27-bit set F[3d + b] holds the cells of the band where d may still go (bit 9r + c is
 * row r of the band, column c). A solved cell keeps the bit of its digit only.
 *
 * Rules applied to a fixpoint before each guess:
 *  - locked candidates inside a band (pointing and claiming, and the whole of what the
 *    three rows x three boxes of a band allow): a digit takes one cell in each row and each box
 *    of a band, so its mini-rows (row r x box k) must contain a one-to-one matching of rows to
 *    boxes; mini-rows in no such matching are removed (table LOCKED, built from the 6 matchings);
 *  - hidden singles in a row (a row of a digit with one cell left: the cell is solved, every
 *    other digit leaves it); a box with one cell left becomes a row with one cell left through
 *    the matching rule;
 *  - columns across bands: when the digit's box of a band has one column left (or the digit is
 *    placed there), the other two bands lose that column (table OTHER_BANDS);
 *  - hidden singles in a column (a column whose digit can only be in one band: that band's box
 *    in the stack keeps that column only);
 *  - naked singles (a cell with one digit left), counted bit-sliced over the nine digits of a band.
 * Then a guess on a cell of fewest candidates (two, almost always), digits in increasing order,
 * depth-first, each branch on a copy of the state (about 250 bytes). Solutions are counted up to
 * a limit; the first one found is written out.
 *
 * Answers are checked by the caller (solvers.rules.are_solutions_of); tests compare counts with
 * DLX puzzle by puzzle (tests/test_bitset9_native.py). */
#include <stdint.h>
#include <string.h>

#define ALL27 0x7FFFFFFu

typedef struct {
    uint32_t F[27];     /* cells where digit d may go in band b: F[3d + b] */
    uint32_t seen[27];  /* F as it was when last propagated */
    uint32_t open[3];   /* unsolved cells of each band */
} state;

typedef struct {
    int64_t count, limit, guesses, guess_limit;
    int stopped;
    uint8_t *solution;
} search;

static uint32_t SHRINK[512];        /* a row's 9 bits -> the 3 bits of its non-empty mini-rows */
static uint32_t LOCKED[512];        /* 9 mini-row bits (3r + k) -> the cells of mini-rows that
                                       lie on a row-to-box matching, 27 bits */
static uint32_t OTHER_BANDS[512];   /* a band's 9 column bits -> the cells the other bands keep */
static uint32_t COLUMN_ONLY[512];   /* the columns only this band can hold -> the cells it keeps */
static uint32_t KEEP[27];           /* a cell of a band -> the band minus its row and box peers */
static int tables_ready;

static uint32_t column_cells(uint32_t columns) {     /* 9 column bits -> 27 cells */
    return columns | columns << 9 | columns << 18;
}

static void build_tables(void) {
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (uint32_t m = 0; m < 512; m++) {
        SHRINK[m] = (m & 7 ? 1 : 0) | (m & 070 ? 2 : 0) | (m & 0700 ? 4 : 0);
        uint32_t viable = 0;
        for (int p = 0; p < 6; p++) {
            uint32_t bits = 0;
            for (int r = 0; r < 3; r++)
                bits |= 1u << (3 * r + perms[p][r]);
            if ((m & bits) == bits)
                viable |= bits;
        }
        uint32_t cells = 0;
        for (int i = 0; i < 9; i++)
            if (viable >> i & 1)
                cells |= 7u << (9 * (i / 3) + 3 * (i % 3));
        LOCKED[m] = cells;
        uint32_t gone = 0, keep_columns = 0;
        for (int stack = 0; stack < 3; stack++) {
            uint32_t part = m >> (3 * stack) & 7;
            if (part && !(part & (part - 1)))
                gone |= part << (3 * stack);
            keep_columns |= (part ? part : 7u) << (3 * stack);
        }
        OTHER_BANDS[m] = ALL27 & ~column_cells(gone);
        COLUMN_ONLY[m] = column_cells(keep_columns);
    }
    for (int i = 0; i < 27; i++) {
        int r = i / 9, c = i % 9;
        uint32_t peers = 0x1FFu << (9 * r);
        for (int rr = 0; rr < 3; rr++)
            peers |= 7u << (9 * rr + 3 * (c / 3));
        KEEP[i] = (ALL27 & ~peers) | 1u << i;
    }
    tables_ready = 1;
}

static inline uint32_t fold(uint32_t x) { return (x | x >> 9 | x >> 18) & 0x1FF; }

/* The rules on one set F[s] (digit s / 3, band s % 3); 0 when it leaves no room. */
static inline int update(state *st, int s) {
    int band = s % 3, base = s - band;
    int o1 = base + (band + 1) % 3, o2 = base + (band + 2) % 3;
    uint32_t x = st->F[s];
    uint32_t minirows = SHRINK[x & 0x1FF] | SHRINK[x >> 9 & 0x1FF] << 3 | SHRINK[x >> 18] << 6;
    x &= LOCKED[minirows];
    if (!x)
        return 0;
    uint32_t columns = fold(x);
    uint32_t only_here = columns & ~(fold(st->F[o1]) | fold(st->F[o2]));
    if (only_here) {                              /* hidden singles in columns */
        uint32_t kept = x & COLUMN_ONLY[only_here];
        if (kept != x) {
            x = kept;
            minirows = SHRINK[x & 0x1FF] | SHRINK[x >> 9 & 0x1FF] << 3 | SHRINK[x >> 18] << 6;
            x &= LOCKED[minirows];
            if (!x)
                return 0;
            columns = fold(x);
        }
    }
    st->F[s] = st->seen[s] = x;
    uint32_t keep = OTHER_BANDS[columns];
    st->F[o1] &= keep;
    st->F[o2] &= keep;
    uint32_t solved = 0;                          /* rows of this digit with one cell left */
    for (int r = 0; r < 3; r++) {
        uint32_t row = x >> (9 * r) & 0x1FF;
        if (!(row & (row - 1)))
            solved |= row << (9 * r);
    }
    solved &= st->open[band];
    if (solved) {
        st->open[band] &= ~solved;
        for (int t = band; t < 27; t += 3)
            if (t != s)
                st->F[t] &= ~solved;
    }
    return 1;
}

/* Every rule to a fixpoint: 0 on a contradiction, else 1 with *pairs the cells of two
 * candidates per band (where a guess goes). */
static int propagate(state *st, uint32_t pairs[3]) {
    for (;;) {
        int changed;
        do {
            changed = 0;
            for (int s = 0; s < 27; s++) {
                if (st->F[s] != st->seen[s]) {
                    changed = 1;
                    if (!update(st, s))
                        return 0;
                }
            }
        } while (changed);
        if (!(st->open[0] | st->open[1] | st->open[2]))
            return 1;
        int placed = 0;
        for (int b = 0; b < 3; b++) {             /* naked singles, bit-sliced counts */
            uint32_t one = 0, two = 0, three = 0;
            for (int s = b; s < 27; s += 3) {
                uint32_t x = st->F[s];
                three |= two & x;
                two |= one & x;
                one |= x;
            }
            if (one != ALL27)
                return 0;                         /* a cell without a candidate */
            pairs[b] = two & ~three;
            uint32_t singles = one & ~two & st->open[b];
            while (singles) {
                int i = __builtin_ctz(singles);
                singles &= singles - 1;
                uint32_t bit = 1u << i;
                int s = b;
                while (s < 27 && !(st->F[s] & bit))
                    s += 3;
                if (s >= 27)
                    return 0;                     /* emptied by a single placed just before */
                st->F[s] &= KEEP[i];
                placed = 1;
            }
        }
        if (!placed)
            return 1;
    }
}

static void write_solution(const state *st, uint8_t *out) {
    for (int s = 0; s < 27; s++) {
        uint32_t x = st->F[s];
        while (x) {
            int i = __builtin_ctz(x);
            x &= x - 1;
            out[27 * (s % 3) + i] = (uint8_t)(s / 3 + 1);
        }
    }
}

/* The band and bit of an unsolved cell of fewest candidates (a pair when there is one). */
static void choose(const state *st, const uint32_t pairs[3], int *band, int *bit) {
    for (int b = 0; b < 3; b++) {
        uint32_t p = pairs[b] & st->open[b];
        if (p) {
            *band = b;
            *bit = __builtin_ctz(p);
            return;
        }
    }
    int best = 10;
    for (int b = 0; b < 3; b++) {
        uint32_t open = st->open[b];
        while (open) {
            int i = __builtin_ctz(open);
            open &= open - 1;
            int k = 0;
            for (int s = b; s < 27; s += 3)
                k += st->F[s] >> i & 1;
            if (k < best) {
                best = k;
                *band = b;
                *bit = i;
            }
        }
    }
}

static void solve(state *st, search *sr) {
    uint32_t pairs[3];
    if (!propagate(st, pairs))
        return;
    if (!(st->open[0] | st->open[1] | st->open[2])) {
        if (sr->count == 0)
            write_solution(st, sr->solution);
        sr->count++;
        return;
    }
    int band = 0, i = 0;
    choose(st, pairs, &band, &i);
    uint32_t bit = 1u << i;
    for (int s = band; s < 27; s += 3) {
        if (!(st->F[s] & bit))
            continue;
        if (sr->limit && sr->count >= sr->limit)
            return;
        if (sr->guess_limit && sr->guesses >= sr->guess_limit) {
            sr->stopped = 1;
            return;
        }
        sr->guesses++;
        state next = *st;
        next.F[s] &= KEEP[i];
        solve(&next, sr);
        if (sr->stopped)
            return;
    }
}

/* The clues of one puzzle placed on a fresh state: 0 when two of them conflict. */
static int place_clues(state *st, const uint8_t *cells) {
    for (int s = 0; s < 27; s++) {
        st->F[s] = ALL27;
        st->seen[s] = ALL27;
    }
    st->open[0] = st->open[1] = st->open[2] = ALL27;
    for (int cell = 0; cell < 81; cell++) {
        int d = cells[cell];
        if (!d)
            continue;
        int b = cell / 27, i = cell % 27, s = 3 * (d - 1) + b;
        uint32_t bit = 1u << i;
        if (!(st->F[s] & bit))
            return 0;
        st->F[s] &= KEEP[i];
        uint32_t keep = ALL27 & ~column_cells(1u << (i % 9));
        st->F[3 * (d - 1) + (b + 1) % 3] &= keep;
        st->F[3 * (d - 1) + (b + 2) % 3] &= keep;
        for (int t = b; t < 27; t += 3)
            if (t != s)
                st->F[t] &= ~bit;
        st->open[b] &= ~bit;
    }
    return 1;
}

/* Solve or count each of `count` puzzles (uint8 [count, 81], 0 = empty, 1..9 clues):
 * counts[p] solutions up to `limit` (0 = all), the first one in solutions[p] (zeros when there
 * is none), guesses[p] guesses made, complete[p] 0 when `guess_limit` (0 = none) stopped the
 * search first. Clues that conflict give count 0. */
void bitset9_native_many(const uint8_t *puzzles, int64_t count, int64_t limit,
                         int64_t guess_limit, uint8_t *solutions, int64_t *counts,
                         int64_t *guesses, uint8_t *complete) {
    if (!tables_ready)
        build_tables();
    for (int64_t p = 0; p < count; p++) {
        search sr = {0, limit, 0, guess_limit, 0, solutions + 81 * p};
        memset(sr.solution, 0, 81);
        state st;
        if (place_clues(&st, puzzles + 81 * p))
            solve(&st, &sr);
        counts[p] = sr.count;
        guesses[p] = sr.guesses;
        complete[p] = (uint8_t)!sr.stopped;
    }
}

/* Built at load time too, so threads never race on the first call. */
__attribute__((constructor)) static void bitset9_native_init(void) { build_tables(); }
