/* The exact cover kernel of `race cover` in C: solvers/cover_native.py builds it with the system's
 * C compiler at its first use (solvers/native_library.py) and calls it through ctypes, so the
 * command reaches its first node without importing numba.
 *
 * Two searches, each making the same tree, the same covers in the same order and the same counts
 * as the numba kernel it stands in for (tests/test_cover_native.py compares them problem by
 * problem):
 *
 *   cover_search_x   Algorithm X (solvers/exact_cover/algorithm_x.py, dlx_search): exact cover with
 *                    secondary items, the S heuristic (MRV) or the first item; also splits a
 *                    search into pieces and searches one piece (race cover -j);
 *   cover_search_m   colors and multiplicities (solvers/exact_cover/algorithm_m.py, multiplicity_search).
 *
 * The data structure is the one of Knuth's TAOCP 7.2.2.1 and his dlx1 program, not the six
 * parallel link arrays of solvers/exact_cover/dancing_links.py. Items 1..N have LLINK, RLINK (the list of
 * active items: primary ones after the root 0, secondary ones after their own root N+1). Nodes
 * have TOP, ULINK, DLINK, COLOR: node i <= N is the header of item i and keeps the length of its
 * list, LEN(i) = TOP(i); the nodes of an option are consecutive, and a spacer node sits between
 * two options, its TOP <= 0 (minus the number of options before it), its ULINK the first node of
 * the option before it, its DLINK the last node of the option after it. So walking an option is
 * x+1 (no load waits for the one before it, as with a right link), and from inside an option,
 * x+1 past the end jumps (via ULINK) to its first node, x-1 past the start (via DLINK) to its
 * last. The fields are separate arrays (structure of arrays, as in TAOCP): a hidden node's TOP,
 * ULINK and DLINK are read as three streams, which measured faster than 16-byte node records.
 *
 * Counters as in the paper and the numba kernels: nodes = the root plus one per option tried;
 * updates = one per item covered plus one per node hidden from an item list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t link;

/* The links of a problem, passed by value so that the compiler keeps them in registers. */
typedef struct {
    link *llink, *rlink;        /* items: the list of active items */
    link *ulink, *dlink;        /* nodes: the item's list */
    int32_t *top;               /* nodes: the item; spacers: <= 0; headers: the list's length */
    int32_t *color;             /* nodes: the color (0: none) */
} matrix;

#define LLINK(i) m.llink[i]
#define RLINK(i) m.rlink[i]
#define ULINK(x) m.ulink[x]
#define DLINK(x) m.dlink[x]
#define TOP(x) m.top[x]
#define LEN(i) m.top[i]
#define COLOR(x) m.color[x]
#define ROOT 0

/* The choice of the item to branch on (see choose and cover_search_m) */
#define MRV 0
#define FIRST 1
#define SLACK 2

typedef struct {
    int32_t items, primary, options;
    int64_t size;               /* nodes, headers and spacers included */
    matrix m;
    link *spacer;               /* spacer[k]: the spacer before option k (k = 0..options) */
    int32_t *option_of;         /* the option of each node (colors and multiplicities) */
    int32_t *lower, *upper;     /* bounds of the primary items 1..primary (idem) */
} problem;

/* -- building, copying and freeing -------------------------------------------------------- */

void cover_free(problem *p) {
    if (!p)
        return;
    free(p->m.llink);
    free(p->m.rlink);
    free(p->m.ulink);
    free(p->m.dlink);
    free(p->m.top);
    free(p->m.color);
    free(p->spacer);
    free(p->option_of);
    free(p->lower);
    free(p->upper);
    free(p);
}

static problem *allocate(int32_t items, int32_t primary, int32_t options, int64_t size,
                         int extended) {
    problem *p = calloc(1, sizeof(problem));
    if (!p)
        return NULL;
    p->items = items;
    p->primary = primary;
    p->options = options;
    p->size = size;
    size_t n = (size_t)size, k = (size_t)items + 2;
    p->m.llink = malloc(sizeof(link) * k);
    p->m.rlink = malloc(sizeof(link) * k);
    p->m.ulink = malloc(sizeof(link) * n);
    p->m.dlink = malloc(sizeof(link) * n);
    p->m.top = malloc(sizeof(int32_t) * n);
    p->m.color = malloc(sizeof(int32_t) * n);
    p->spacer = malloc(sizeof(link) * ((size_t)options + 1));
    int ok = p->m.llink && p->m.rlink && p->m.ulink && p->m.dlink && p->m.top && p->m.color &&
             p->spacer;
    if (extended) {
        p->option_of = malloc(sizeof(int32_t) * n);
        p->lower = malloc(sizeof(int32_t) * k);
        p->upper = malloc(sizeof(int32_t) * k);
        ok = ok && p->option_of && p->lower && p->upper;
    }
    if (!ok) {
        cover_free(p);
        return NULL;
    }
    return p;
}

/* Link items from..to (none if from > to) into a circular list after root. */
static void circle(matrix m, link root, link from, link to) {
    link prev = root;
    for (link i = from; i <= to; i++) {
        RLINK(prev) = i;
        LLINK(i) = prev;
        prev = i;
    }
    RLINK(prev) = root;
    LLINK(root) = prev;
}

/* The problem with `items` items (the first `primary` primary) and `options` options, option o
 * naming the items flat[starts[o] .. starts[o+1]) (0-based; distinct, in range, one primary at
 * least: checked by the caller). colors (per entry of flat; 0: none), lower and upper (per primary
 * item) may be NULL; `extended` prepares the search with colors and multiplicities. Items are
 * linked in the given order, each option's nodes at the bottom of their item lists. NULL when
 * memory runs out. */
problem *cover_build(int32_t items, int32_t primary, int32_t options, const int32_t *starts,
                     const int32_t *flat, const int32_t *colors, const int32_t *lower,
                     const int32_t *upper, int32_t extended) {
    int64_t size = (int64_t)items + 1 + ((int64_t)options + 1) + starts[options];
    problem *p = allocate(items, primary, options, size, extended);
    if (!p)
        return NULL;
    matrix m = p->m;
    circle(m, ROOT, 1, primary);                    /* the primary items, root 0 */
    circle(m, items + 1, primary + 1, items);       /* the secondary items, root items + 1 */
    for (link i = 0; i <= (link)items; i++) {
        ULINK(i) = DLINK(i) = i;
        LEN(i) = 0;
        COLOR(i) = 0;
    }
    link x = items + 1;                             /* the first spacer */
    TOP(x) = 0;
    ULINK(x) = 0;
    COLOR(x) = 0;
    for (int32_t o = 0; o < options; o++) {
        p->spacer[o] = x;
        link first = x + 1;
        for (int64_t e = starts[o]; e < starts[o + 1]; e++) {
            x += 1;
            link i = (link)flat[e] + 1;
            TOP(x) = (int32_t)i;
            COLOR(x) = colors ? colors[e] : 0;
            ULINK(x) = ULINK(i);                    /* at the bottom of item i's list */
            DLINK(x) = i;
            DLINK(ULINK(i)) = x;
            ULINK(i) = x;
            LEN(i) += 1;
        }
        DLINK(first - 1) = x;                       /* the spacer before: its last node */
        x += 1;                                     /* the spacer after: its first node */
        TOP(x) = -(o + 1);
        ULINK(x) = first;
        COLOR(x) = 0;
    }
    p->spacer[options] = x;
    DLINK(x) = 0;
    if (extended) {
        for (int32_t o = 0; o < options; o++)
            for (link y = p->spacer[o] + 1; y < p->spacer[o + 1]; y++)
                p->option_of[y] = o;
        for (link s = 0; s <= (link)items; s++)
            p->option_of[s] = -1;
        for (int32_t o = 0; o <= options; o++)
            p->option_of[p->spacer[o]] = -1;
        for (link i = 0; i <= (link)items + 1; i++)
            p->lower[i] = p->upper[i] = 1;
        for (link i = 1; i <= (link)primary; i++) {
            if (lower)
                p->lower[i] = lower[i - 1];
            if (upper)
                p->upper[i] = upper[i - 1];
        }
    }
    return p;
}

/* A copy of p, for a thread of its own (a search changes the links while it runs). */
problem *cover_clone(const problem *p) {
    int extended = p->option_of != NULL;
    problem *q = allocate(p->items, p->primary, p->options, p->size, extended);
    if (!q)
        return NULL;
    size_t n = (size_t)p->size, k = (size_t)p->items + 2;
    memcpy(q->m.llink, p->m.llink, sizeof(link) * k);
    memcpy(q->m.rlink, p->m.rlink, sizeof(link) * k);
    memcpy(q->m.ulink, p->m.ulink, sizeof(link) * n);
    memcpy(q->m.dlink, p->m.dlink, sizeof(link) * n);
    memcpy(q->m.top, p->m.top, sizeof(int32_t) * n);
    memcpy(q->m.color, p->m.color, sizeof(int32_t) * n);
    memcpy(q->spacer, p->spacer, sizeof(link) * ((size_t)p->options + 1));
    if (extended) {
        memcpy(q->option_of, p->option_of, sizeof(int32_t) * n);
        memcpy(q->lower, p->lower, sizeof(int32_t) * k);
        memcpy(q->upper, p->upper, sizeof(int32_t) * k);
    }
    return q;
}

/* The option (0-based) that node x belongs to: the number in the spacer after it. */
static int32_t option_of_node(matrix m, link x) {
    while (TOP(x) > 0)
        x++;
    return -TOP(x) - 1;
}

/* -- Algorithm X -------------------------------------------------------------------------- */

/* Take node q out of its item's list. */
static inline __attribute__((always_inline))
void hide_node(matrix m, link q) {
    link x = (link)TOP(q), u = ULINK(q), d = DLINK(q);
    DLINK(u) = d;
    ULINK(d) = u;
    LEN(x) -= 1;
}

/* Put node q back where hide_node took it from. */
static inline __attribute__((always_inline))
void unhide_node(matrix m, link q) {
    link x = (link)TOP(q), u = ULINK(q), d = DLINK(q);
    DLINK(u) = q;
    ULINK(d) = q;
    LEN(x) += 1;
}

/* Hide the option of node p from the other items' lists: its nodes after p up to the spacer,
 * then from its first node up to p. Returns the updates (nodes hidden). */
static inline __attribute__((always_inline))
int64_t hide(matrix m, link p) {
    link q = p + 1;
    for (; TOP(q) > 0; q++)
        hide_node(m, q);
    int64_t updates = q - p - 1;
    link first = ULINK(q);
    for (q = first; q != p; q++)
        hide_node(m, q);
    return updates + (p - first);
}

/* The mirror image of hide: the same nodes, right to left. */
static inline __attribute__((always_inline))
void unhide(matrix m, link p) {
    link q = p - 1;
    for (; TOP(q) > 0; q--)
        unhide_node(m, q);
    for (q = DLINK(q); q != p; q--)
        unhide_node(m, q);
}

/* Cover item i: out of the active list, then every option of its list hidden, top to bottom.
 * Returns the updates. */
static inline __attribute__((always_inline))
int64_t cover(matrix m, link i) {
    link l = LLINK(i), r = RLINK(i);
    RLINK(l) = r;
    LLINK(r) = l;
    int64_t updates = 1;
    for (link p = DLINK(i); p != i; p = DLINK(p))
        updates += hide(m, p);
    return updates;
}

/* Uncover item i: the mirror image of cover, bottom to top, then back into the active list. */
static inline __attribute__((always_inline))
void uncover(matrix m, link i) {
    for (link p = ULINK(i); p != i; p = ULINK(p))
        unhide(m, p);
    link l = LLINK(i), r = RLINK(i);
    RLINK(l) = i;
    LLINK(r) = i;
}

/* Cover the other items of the option of node r, left to right from r. Returns the updates. */
static inline __attribute__((always_inline))
int64_t commit(matrix m, link r) {
    int64_t updates = 0;
    link q = r + 1;
    for (; TOP(q) > 0; q++)
        updates += cover(m, (link)TOP(q));
    for (q = ULINK(q); q != r; q++)
        updates += cover(m, (link)TOP(q));
    return updates;
}

/* Undo commit: uncover the other items, right to left. */
static inline __attribute__((always_inline))
void uncommit(matrix m, link r) {
    link q = r - 1;
    for (; TOP(q) > 0; q--)
        uncover(m, (link)TOP(q));
    for (q = DLINK(q); q != r; q--)
        uncover(m, (link)TOP(q));
}

/* The item to branch on: the first active primary item of least length (MRV, Knuth's S
 * heuristic; an item of length 0 ends the scan), or the first one (FIRST). */
static inline __attribute__((always_inline))
link choose(matrix m, int heuristic) {
    link c = RLINK(ROOT);
    if (heuristic == FIRST)
        return c;
    int32_t s = LEN(c);
    for (link j = RLINK(c); j != ROOT && s > 0; j = RLINK(j)) {
        if (LEN(j) < s) {
            c = j;
            s = LEN(j);
        }
    }
    return c;
}

/* What one call of cover_search_x or cover_search_m does and what it gives back (see there). */
typedef struct {
    int32_t heuristic;          /* MRV or FIRST (Algorithm X); MRV or SLACK (multiplicities) */
    int64_t limit, node_limit, keep;
    int32_t *chosen;            /* keep x width: the options of each kept solution */
    int32_t *depth;             /* keep: how many */
    const int32_t *prefix;      /* a piece: the choice made at each of its levels */
    int32_t prefix_length;
    int32_t split_depth;        /* > 0: stop each branch at this depth and record it as a piece */
    int32_t *pieces;            /* room for piece_room pieces of split_depth choices each */
    int64_t piece_room;
    const int32_t *stop;        /* set by another thread: stop before the next node */
    /* out */
    int64_t count, nodes, updates, pieces_found;
    int32_t complete;
} run;

/* The counts of a search into its run; 0, or -1 when memory ran out (not ok). */
static int finish(run *run, int ok, int64_t count, int64_t nodes, int64_t updates, int complete,
                  int64_t pieces_found) {
    run->count = count;
    run->nodes = nodes;
    run->updates = updates;
    run->complete = complete;
    run->pieces_found = pieces_found;
    return ok ? 0 : -1;
}

/* Algorithm X on p, the links restored before returning (0; -1 when memory ran out).
 *
 * The whole search: nodes = 1 (the root) + the options tried; the updates; the solutions up to
 * limit (0: all); stop before trying an option once nodes reached node_limit (0: no budget) or
 * *stop is set. The options of the first `keep` solutions go to chosen[s * primary ..], depth[s].
 *
 * A piece of a split search (prefix_length > 0): the options of the prefix are chosen first,
 * counting nothing (the splitter counted them), then the search below them counts as usual, with
 * no root node (the splitter counted it as an option tried).
 *
 * A splitter (split_depth > 0): the search as above, except that a branch reaching depth
 * split_depth is not searched: its options go to pieces (the first piece_room of them) and
 * pieces_found counts them all. The splitter's counts and every piece's add up to the whole
 * search's. */
int cover_search_x(problem *p, run *run) {
    matrix m = p->m;
    for (int32_t l = 0; l < run->prefix_length; l++) {        /* replay the prefix */
        link r = (link)run->prefix[l];
        cover(m, (link)TOP(r));
        commit(m, r);
    }
    int64_t levels = 1;
    for (link c = RLINK(ROOT); c != ROOT; c = RLINK(c))
        levels += 1;
    link *x = malloc(sizeof(link) * levels);         /* Knuth's x_l: the option tried at level l */
    link *cols = malloc(sizeof(link) * levels);      /* the item covered at level l */
    int ok = x && cols;
    int heuristic = run->heuristic;
    int64_t limit = run->limit, node_limit = run->node_limit, keep = run->keep;
    int64_t split_depth = run->split_depth > 0 ? run->split_depth : -1;
    const int32_t *stop = run->stop;
    int64_t count = 0, nodes = run->prefix_length > 0 ? 0 : 1, updates = 0, pieces_found = 0;
    int64_t level = 0;
    int complete = 1, stopped = 0, stop_in_try = 0, forward = 1;
    link c = 0;
    while (ok) {
        if (forward) {
            if (RLINK(ROOT) == ROOT) {                   /* no primary item left: a solution */
                if (count < keep) {
                    for (int64_t l = 0; l < level; l++)
                        run->chosen[count * p->primary + l] = option_of_node(m, x[l]);
                    run->depth[count] = (int32_t)level;
                }
                count += 1;
                if (limit > 0 && count >= limit) {
                    stopped = 1;
                    break;
                }
                forward = 0;
            } else if (level == split_depth) {           /* a piece, for a worker */
                if (pieces_found < run->piece_room)
                    for (int64_t l = 0; l < level; l++)
                        run->pieces[pieces_found * split_depth + l] = (int32_t)x[l];
                pieces_found += 1;
                forward = 0;
            } else {
                c = choose(m, heuristic);
                updates += cover(m, c);
                cols[level] = c;
                x[level] = DLINK(c);
            }
        }
        if (!forward) {
            if (level == 0)
                break;
            level -= 1;
            link r = x[level];
            uncommit(m, r);
            c = cols[level];
            x[level] = DLINK(r);
        }
        link r = x[level];                                /* try the next option of c */
        if (r == c) {                                     /* every option of c tried */
            uncover(m, c);
            forward = 0;
            continue;
        }
        if ((node_limit > 0 && nodes >= node_limit) ||
                (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))) {
            complete = 0;
            stopped = 1;
            stop_in_try = 1;
            break;
        }
        nodes += 1;
        updates += commit(m, r);
        level += 1;
        forward = 1;
    }
    if (stopped) {                                        /* unwind: the links as they came */
        if (stop_in_try)
            uncover(m, cols[level]);
        while (level > 0) {
            level -= 1;
            uncommit(m, x[level]);
            uncover(m, cols[level]);
        }
    }
    for (int32_t l = run->prefix_length - 1; l >= 0; l--) {
        uncommit(m, (link)run->prefix[l]);
        uncover(m, (link)TOP(run->prefix[l]));
    }
    free(x);
    free(cols);
    return finish(run, ok, count, nodes, updates, complete, pieces_found);
}

/* -- colors and multiplicities ---------------------------------------------------------- */

/* The search of solvers/exact_cover/algorithm_m.py (its docstring tells the branching): an option is hidden
 * by unlinking all its nodes and goes on a trail, which is unwound to undo; a closed item leaves
 * the active list and goes on the trail as minus its number. */

/* Unlink every node of option r from its item's list; r onto the trail. Returns the updates. */
static inline int64_t hide_option(const problem *p, int32_t r, int64_t *trail, int64_t *top) {
    matrix m = p->m;
    link first = p->spacer[r] + 1, end = p->spacer[r + 1];
    for (link x = first; x < end; x++)
        hide_node(m, x);
    trail[(*top)++] = r;
    return end - first;
}

/* Take item i out of the active list (no more of its options); -i onto the trail. */
static inline void close_item(const problem *p, link i, uint8_t *closed, int64_t *trail,
                              int64_t *top) {
    matrix m = p->m;
    RLINK(LLINK(i)) = RLINK(i);
    LLINK(RLINK(i)) = LLINK(i);
    closed[i] = 1;
    trail[(*top)++] = -(int64_t)i;
}

/* Undo the trail down to height `to`, last first. Returns the new height. */
static int64_t unwind(const problem *p, uint8_t *closed, const int64_t *trail, int64_t top,
                      int64_t to) {
    matrix m = p->m;
    while (top > to) {
        int64_t r = trail[--top];
        if (r < 0) {                                /* an item closed: back into the active list */
            link i = (link)-r;
            RLINK(LLINK(i)) = i;
            LLINK(RLINK(i)) = i;
            closed[i] = 0;
        } else {
            link first = p->spacer[r] + 1;
            for (link x = p->spacer[r + 1] - 1; x >= first; x--)
                unhide_node(m, x);
        }
    }
    return top;
}

/* Count the solutions of a problem with colors and multiplicities (up to limit, 0: all), the
 * links restored before returning; stop before a branch once nodes reached node_limit (0: none)
 * or *stop is set. The options of the first `keep` solutions go to chosen[s * options ..] and
 * depth[s]. Returns 0, or -1 when memory ran out.
 *
 * Split as cover_search_x is (see there), a piece being the number of the branch taken at each
 * level above it: a piece's search takes those branches first, counting nothing (the branches
 * before each are skipped: their options hidden, as after trying them), and ends when it would
 * go back above them. */
int cover_search_m(problem *p, run *run) {
    matrix m = p->m;
    link last_primary = (link)p->primary;
    int64_t options = p->options, headers = (int64_t)p->primary + 1;
    int64_t levels = options + headers + 1;
    int64_t *count_of = calloc(headers, sizeof(int64_t));    /* times each primary item is covered */
    uint8_t *closed = calloc(headers, 1);
    int64_t *trail = malloc(sizeof(int64_t) * levels);
    link *itm = malloc(sizeof(link) * levels);               /* the item branched on at a level */
    int64_t *base = malloc(sizeof(int64_t) * levels);        /* trail height when the level began */
    int64_t *mid = malloc(sizeof(int64_t) * levels);         /* ... when its current branch began */
    int32_t *picked = malloc(sizeof(int32_t) * levels);      /* that branch's option, -1: "no more" */
    int32_t *branch = malloc(sizeof(int32_t) * levels);      /* that branch's number at its level */
    uint8_t *done_none = calloc(levels, 1);
    int ok = count_of && closed && trail && itm && base && mid && picked && branch && done_none;
    int64_t prefix_length = run->prefix_length;
    int64_t split_depth = run->split_depth > 0 ? run->split_depth : -1;
    int64_t top = 0, solutions = 0, nodes = prefix_length > 0 ? 0 : 1, updates = 0, level = 0;
    int64_t pieces_found = 0;
    int complete = 1, forward = 1;
    while (ok) {
        if (forward) {
            if (RLINK(ROOT) == ROOT) {                      /* every primary item closed */
                if (solutions < run->keep) {
                    int64_t k = 0;
                    for (int64_t t = 0; t < level; t++)
                        if (picked[t] >= 0)
                            run->chosen[solutions * options + k++] = picked[t];
                    run->depth[solutions] = (int32_t)k;
                }
                solutions += 1;
                if (run->limit > 0 && solutions >= run->limit)
                    break;
                forward = 0;
            } else if (level == split_depth) {              /* a piece, for a worker */
                if (pieces_found < run->piece_room)
                    for (int64_t l = 0; l < level; l++)
                        run->pieces[pieces_found * split_depth + l] = branch[l];
                pieces_found += 1;
                forward = 0;
            } else {                                        /* the item of least branch degree */
                link best = 0;
                int64_t best_degree = INT64_MAX;
                for (link c = RLINK(ROOT); c != ROOT; c = RLINK(c)) {
                    int64_t degree;
                    if (run->heuristic == SLACK) {          /* options + 1 - covers still needed */
                        int64_t need = p->lower[c] - count_of[c];
                        degree = LEN(c) + 1 - (need > 0 ? need : 0);
                        if (degree < 0)
                            degree = 0;
                    } else {
                        degree = LEN(c) + (count_of[c] >= p->lower[c] ? 1 : 0);
                    }
                    if (degree < best_degree) {
                        best = c;
                        best_degree = degree;
                        if (degree == 0)
                            break;
                    }
                }
                if (best_degree == 0) {
                    forward = 0;
                } else {
                    itm[level] = best;
                    base[level] = top;
                    done_none[level] = 0;
                    branch[level] = -1;
                    if (level < prefix_length) {            /* a piece: skip to its branch */
                        for (int32_t b = 0; b < run->prefix[level]; b++)
                            hide_option(p, p->option_of[DLINK(best)], trail, &top);
                        branch[level] = run->prefix[level] - 1;
                    }
                }
            }
        }
        if (!forward) {
            if (level == prefix_length)                     /* back above the piece: done */
                break;
            level -= 1;
            top = unwind(p, closed, trail, top, mid[level]);
            int32_t r = picked[level];
            if (r < 0) {                                    /* the "no more" branch was the last */
                top = unwind(p, closed, trail, top, base[level]);
                continue;
            }
            for (link y = p->spacer[r] + 1; y < p->spacer[r + 1]; y++)
                if ((link)TOP(y) <= last_primary)
                    count_of[TOP(y)] -= 1;
            updates += hide_option(p, r, trail, &top);      /* excluded from now on */
        }
        link i = itm[level];                                /* the next branch at this level */
        link x = DLINK(i);
        if (x == i && (done_none[level] || count_of[i] < p->lower[i])) {
            top = unwind(p, closed, trail, top, base[level]);
            forward = 0;
            continue;
        }
        if ((run->node_limit > 0 && nodes >= run->node_limit) ||
                (run->stop && __atomic_load_n(run->stop, __ATOMIC_RELAXED))) {
            complete = 0;
            break;
        }
        int counted = level >= prefix_length;               /* a piece's own levels only */
        int64_t work = 0;
        nodes += counted;
        branch[level] += 1;
        mid[level] = top;
        if (x == i) {                                       /* close i: no more of its options */
            done_none[level] = 1;
            picked[level] = -1;
            close_item(p, i, closed, trail, &top);
            work += 1;
        } else {
            int32_t r = p->option_of[x];
            picked[level] = r;
            work += hide_option(p, r, trail, &top);
            for (link y = p->spacer[r] + 1; y < p->spacer[r + 1]; y++) {
                link j = (link)TOP(y);
                if (j <= last_primary) {
                    count_of[j] += 1;
                    if (count_of[j] >= p->upper[j] && !closed[j]) {
                        for (link z = DLINK(j); z != j;) {
                            link next = DLINK(z);
                            work += hide_option(p, p->option_of[z], trail, &top);
                            z = next;
                        }
                        close_item(p, j, closed, trail, &top);
                        work += 1;
                    }
                } else {
                    for (link z = DLINK(j); z != j;) {
                        link next = DLINK(z);
                        if (COLOR(y) == 0 || COLOR(z) != COLOR(y))
                            work += hide_option(p, p->option_of[z], trail, &top);
                        z = next;
                    }
                }
            }
        }
        if (counted)
            updates += work;
        level += 1;
        forward = 1;
    }
    if (ok)
        unwind(p, closed, trail, top, 0);
    free(count_of), free(closed), free(trail), free(itm), free(base), free(mid), free(picked);
    free(branch), free(done_none);
    return finish(run, ok, solutions, nodes, updates, complete, pieces_found);
}
