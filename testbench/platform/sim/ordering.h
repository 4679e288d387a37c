// ordering.h — the PCIe ordering table (PCIe Base spec section 2.4.1, table "Ordering Rules
// Summary"): may a later TLP pass an earlier one in the same queue? Row = the later TLP,
// column = the earlier one. Every queue of the platform asks this before letting a TLP leave.
#pragma once
#include "tlp.h"
#include <string>

// The rows and columns of the table.
enum class order_row { posted = 'A', read = 'B', np_with_data = 'C', completion = 'D' };
enum class order_col { posted = 2, read = 3, np_with_data = 4, completion = 5 };

// The table's three answers.
enum class passing {
    must_not,   // "No": the later TLP must not pass the earlier one
    may,        // "Y/N": no requirement; the platform lets it pass (the worst case)
    must,       // "Yes": must be able to pass (deadlock avoidance): allowed whenever blocked
};

// The cells that carry a rule of their own; a test can turn any of them around to show it is
// load-bearing (a "No" rule then reads "Y/N", a "Yes" rule reads "No").
enum class order_rule { none, A2a, A3, A4, B2a, C2a, D2a, D3, D4, D5b };

struct ordering_options {
    bool relaxed_ordering = false;  // honour the RO attribute (A2b, D2b)
    bool id_ordering = false;       // honour the IDO attribute (A2b, B2b, C2b, D2b)
    order_rule disabled = order_rule::none;
};

struct ordering_verdict {
    passing answer;
    const char *cell;   // "A2a", "D5b", ...: the cell that decided
};

order_row row_of(const tlp &later);
order_col col_of(const tlp &earlier);
ordering_verdict may_pass(const tlp &later, const tlp &earlier, const ordering_options &opt);

const char *rule_name(order_rule r);
order_rule rule_from_name(const std::string &name);   // order_rule::none if unknown
