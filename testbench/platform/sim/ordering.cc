// ordering.cc — the ordering table, one cell per branch, each citing its cell name.
#include "ordering.h"

order_row row_of(const tlp &t) {
    switch (t.cls()) {
    case posted: return order_row::posted;
    case non_posted: return t.non_posted_with_data() ? order_row::np_with_data : order_row::read;
    default: return order_row::completion;
    }
}

order_col col_of(const tlp &t) {
    switch (t.cls()) {
    case posted: return order_col::posted;
    case non_posted: return t.non_posted_with_data() ? order_col::np_with_data : order_col::read;
    default: return order_col::completion;
    }
}

// A "No" cell; reads "Y/N" when the test has disabled that rule.
static ordering_verdict no(order_rule r, const char *cell, const ordering_options &opt) {
    return {opt.disabled == r ? passing::may : passing::must_not, cell};
}

// A "Yes" cell; reads "No" when the test has disabled that rule.
static ordering_verdict yes(order_rule r, const char *cell, const ordering_options &opt) {
    return {opt.disabled == r ? passing::must_not : passing::must, cell};
}

static bool ido_applies(const tlp &later, uint16_t later_id, const tlp &earlier,
                        const ordering_options &opt) {
    // IDO: only between different requesters (for a completion, its completer id is compared
    // with the earlier request's requester id).
    return opt.id_ordering && later.id_ordering && later_id != earlier.requester;
}

ordering_verdict may_pass(const tlp &later, const tlp &earlier, const ordering_options &opt) {
    order_row row = row_of(later);
    order_col col = col_of(earlier);
    switch (row) {
    case order_row::posted:
        if (col == order_col::posted) {
            if (opt.relaxed_ordering && later.relaxed_ordering) return {passing::may, "A2b"};
            if (ido_applies(later, later.requester, earlier, opt)) return {passing::may, "A2b"};
            return no(order_rule::A2a, "A2a", opt);
        }
        if (col == order_col::read) return yes(order_rule::A3, "A3", opt);
        if (col == order_col::np_with_data) return yes(order_rule::A4, "A4", opt);
        return {passing::may, "A5a"};   // A5b concerns PCIe-to-PCI bridges: none here
    case order_row::read:
    case order_row::np_with_data: {
        bool read = row == order_row::read;
        if (col == order_col::posted) {
            if (ido_applies(later, later.requester, earlier, opt))
                return {passing::may, read ? "B2b" : "C2b"};
            return read ? no(order_rule::B2a, "B2a", opt) : no(order_rule::C2a, "C2a", opt);
        }
        if (col == order_col::read) return {passing::may, read ? "B3" : "C3"};
        if (col == order_col::np_with_data) return {passing::may, read ? "B4" : "C4"};
        return {passing::may, read ? "B5" : "C5"};
    }
    case order_row::completion:
        if (col == order_col::posted) {
            if (opt.relaxed_ordering && later.relaxed_ordering) return {passing::may, "D2b"};
            if (ido_applies(later, later.completer, earlier, opt)) return {passing::may, "D2b"};
            return no(order_rule::D2a, "D2a", opt);
        }
        if (col == order_col::read) return yes(order_rule::D3, "D3", opt);
        if (col == order_col::np_with_data) return yes(order_rule::D4, "D4", opt);
        // D5b: completions of one request (same transaction id) stay in address order.
        if (later.requester == earlier.requester && later.tag == earlier.tag)
            return no(order_rule::D5b, "D5b", opt);
        return {passing::may, "D5a"};
    }
    return {passing::must_not, "?"};
}

static const char *const rule_names[] = {"none", "A2a", "A3", "A4", "B2a", "C2a",
                                         "D2a", "D3", "D4", "D5b"};

const char *rule_name(order_rule r) { return rule_names[int(r)]; }

order_rule rule_from_name(const std::string &name) {
    for (int i = 1; i < int(sizeof rule_names / sizeof *rule_names); i++)
        if (name == rule_names[i]) return order_rule(i);
    return order_rule::none;
}
