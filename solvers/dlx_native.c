/* The batch path's DLX kernel in C: solvers/dlx_native.py builds it with the system's C compiler
 * at its first use and calls it through ctypes (which releases the GIL, so threads run side by
 * side) without importing numba, whose start-up (about 0.4 s) is most of a whole `race solve`
 * over thousands of 9x9 puzzles.
 *
 * A line-for-line port of solvers/exact_cover/dlx.py `count_with_clues` and solvers/exact_cover/algorithm_x.py
 * `dlx_search` with the MRV heuristic (Knuth's S heuristic, the first item of minimal size,
 * the scan stopped at size 1 when no primary item is empty): the same covers in the same order,
 * so the same first solution, the same node counts and the same answers (tests/test_dlx_native.py
 * compares the two kernels puzzle by puzzle). The link block is the (6, size) uint32 block of
 * solvers/exact_cover/dancing_links.py (rows L, R, U, D, C, S); it is changed while a puzzle runs and
 * restored before the next one. Work arrays come from the caller: no allocation here. */
#include <stdint.h>

typedef uint32_t link;

#define ROOT 0

/* cover_counting_empty of solvers/exact_cover/algorithm_x.py: cover item c and keep *zeros, the number
 * of active primary items (headers 1..last) of size 0, up to date */
static inline void cover(link *L, link *R, link *U, link *D, link *C, link *S, link c,
                         link last, int64_t *zeros) {
    R[L[c]] = R[c];
    L[R[c]] = L[c];
    if (c <= last && S[c] == 0)
        *zeros -= 1;
    for (link i = D[c]; i != c; i = D[i]) {
        for (link j = R[i]; j != i; j = R[j]) {
            D[U[j]] = D[j];
            U[D[j]] = U[j];
            link t = C[j];
            link v = --S[t];
            if (v == 0 && t <= last)
                *zeros += 1;
        }
    }
}

static inline void uncover(link *L, link *R, link *U, link *D, link *C, link *S, link c) {
    for (link i = U[c]; i != c; i = U[i]) {
        for (link j = L[i]; j != i; j = L[j]) {
            S[C[j]] += 1;
            D[U[j]] = j;
            U[D[j]] = j;
        }
    }
    L[R[c]] = c;
    R[L[c]] = c;
}

static inline void uncover_option(link *L, link *R, link *U, link *D, link *C, link *S, link r) {
    for (link j = L[r]; j != r; j = L[j])
        uncover(L, R, U, D, C, S, C[j]);
}

static inline link choose(const link *R, const link *S, int64_t zeros) {
    link c = R[ROOT];
    link floor = zeros > 0 ? 0 : 1;
    link s = S[c];
    for (link j = R[c]; j != ROOT && s > floor; j = R[j]) {
        if (S[j] < s) {
            c = j;
            s = S[j];
        }
    }
    return c;
}

/* dlx_search(links, MRV, limit, node_limit, keep = 1, ...): the chosen option nodes of the first
 * solution go to chosen[0 .. *depth). O, cols, zb, za: at least (primary items + 1) entries. */
static void search(link *L, link *R, link *U, link *D, link *C, link *S, int64_t limit,
                   int64_t node_limit, link *chosen, int64_t *depth, link *O, link *cols,
                   int64_t *zb, int64_t *za, int64_t *count_out, int64_t *nodes_out,
                   int *complete_out) {
    int64_t zeros = 0;
    link last = R[ROOT];
    for (link c = R[ROOT]; c != ROOT; c = R[c]) {
        if (S[c] == 0)
            zeros += 1;
        if (c > last)
            last = c;
    }
    int64_t count = 0, nodes = 1, level = 0;
    int complete = 1, stop_in_try = 0, stopped = 0, forward = 1;
    link c = 0;
    for (;;) {
        if (forward) {
            if (R[ROOT] == ROOT) {
                if (count < 1) {
                    for (int64_t k = 0; k < level; k++)
                        chosen[k] = O[k];
                    *depth = level;
                }
                count += 1;
                if (limit > 0 && count >= limit) {
                    stopped = 1;
                    break;
                }
                forward = 0;
            } else {
                c = choose(R, S, zeros);
                zb[level] = zeros;
                cover(L, R, U, D, C, S, c, last, &zeros);
                za[level] = zeros;
                cols[level] = c;
                O[level] = D[c];
            }
        }
        if (!forward) {
            if (level == 0)
                break;
            level -= 1;
            link r = O[level];
            uncover_option(L, R, U, D, C, S, r);
            zeros = za[level];
            c = cols[level];
            O[level] = D[r];
        }
        link r = O[level];
        if (r == c) {
            uncover(L, R, U, D, C, S, c);
            zeros = zb[level];
            forward = 0;
            continue;
        }
        if (node_limit > 0 && nodes >= node_limit) {
            complete = 0;
            stopped = 1;
            stop_in_try = 1;
            break;
        }
        nodes += 1;
        for (link j = R[r]; j != r; j = R[j])
            cover(L, R, U, D, C, S, C[j], last, &zeros);
        level += 1;
        forward = 1;
    }
    if (stopped) {
        if (stop_in_try)
            uncover(L, R, U, D, C, S, cols[level]);
        while (level > 0) {
            level -= 1;
            uncover_option(L, R, U, D, C, S, O[level]);
            uncover(L, R, U, D, C, S, cols[level]);
        }
    }
    *count_out = count;
    *nodes_out = nodes;
    *complete_out = complete;
}

/* Every puzzle of puzzles[count][side*side] (0 = empty) on the full matrix `links` (size nodes
 * per row of the block): counts (up to limit, 0 = all), nodes, complete, and the first solution
 * of each puzzle in solutions (undefined where count is 0). work: 4 * side*side + 2 link entries
 * and 2 * (4 * side*side + 1) int64 entries, plus `used` of 4 * side*side + 1 bytes. */
void dlx_native_many(link *links, int64_t size, const int32_t *puzzles, int64_t count, int64_t n,
                     int64_t limit, int64_t node_limit, int32_t *solutions, int64_t *counts,
                     int64_t *nodes, uint8_t *complete, link *work, int64_t *work64,
                     uint8_t *used) {
    link *L = links, *R = links + size, *U = links + 2 * size, *D = links + 3 * size,
         *C = links + 4 * size, *S = links + 5 * size;
    int64_t side = n * n, cells = side * side, first = 4 * cells + 1;
    link *O = work, *cols = work + (first + 1), *chosen = work + 2 * (first + 1),
         *clue_nodes = work + 3 * (first + 1);
    int64_t *zb = work64, *za = work64 + (first + 1);
    for (int64_t p = 0; p < count; p++) {
        const int32_t *cellv = puzzles + p * cells;
        int32_t *out = solutions + p * cells;
        for (int64_t x = 0; x < first; x++)
            used[x] = 0;
        int64_t m = 0;
        int ok = 1;
        for (int64_t q = 0; q < cells && ok; q++) {
            int32_t k = cellv[q];
            if (k == 0)
                continue;
            if (k < 0 || k > side) {
                ok = 0;
                break;
            }
            link x = (link)(first + 4 * (q * side + k - 1));
            for (int t = 0; t < 4; t++)
                if (used[C[x + t]])
                    ok = 0;
            if (!ok)
                break;
            for (int t = 0; t < 4; t++) {
                int64_t ignored = 0;
                used[C[x + t]] = 1;
                cover(L, R, U, D, C, S, C[x + t], 0, &ignored);
            }
            clue_nodes[m++] = x;
        }
        int64_t found = 0, k_nodes = 0, depth = 0;
        int done = 1;
        if (ok) {
            search(L, R, U, D, C, S, limit, node_limit, chosen, &depth, O, cols, zb, za, &found,
                   &k_nodes, &done);
            if (found) {
                for (int64_t q = 0; q < cells; q++)
                    out[q] = cellv[q];
                for (int64_t q = 0; q < depth; q++) {
                    int64_t o = ((int64_t)chosen[q] - first) / 4;
                    out[o / side] = (int32_t)(o % side + 1);
                }
            }
        }
        for (int64_t q = m - 1; q >= 0; q--) {
            link x = clue_nodes[q];
            for (int t = 3; t >= 0; t--)
                uncover(L, R, U, D, C, S, C[x + t]);
        }
        counts[p] = found;
        nodes[p] = k_nodes;
        complete[p] = (uint8_t)done;
    }
}
