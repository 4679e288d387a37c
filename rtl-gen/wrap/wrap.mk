# wrap/wrap.mk — the Verilator flow's C tools (docs/verilator-flow.md); included by
# rtl-gen/Makefile, paths relative to rtl-gen/.
#
#   make wrap-tools   build/wrap-gen (.iface -> C API of the verilated model, equiv hooks)
#                     and build/wrap/libequiv.a (the generic equiv driver); rtl-gen/verilate
#                     and rtl-gen/equiv run this themselves (through wrap/tools)
#   make wrap-test    wrap/tests/run: one PASS/FAIL line per test, exit 1 if any failed

WRAP_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -MMD -MP
WRAP_OBJ := build/wrap/obj
WRAP_GEN_OBJS := $(patsubst %,$(WRAP_OBJ)/%.o,wrap_gen iface_read emit_api emit_equiv emit_file)
WRAP_DRIVER_OBJS := $(patsubst %,$(WRAP_OBJ)/%.o,equiv_main stimulus bits iface_read)

.PHONY: wrap-tools wrap-test

wrap-tools: build/wrap-gen build/wrap/libequiv.a

build/wrap-gen: $(WRAP_GEN_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

build/wrap/libequiv.a: $(WRAP_DRIVER_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(WRAP_OBJ)/%.o: wrap/%.c | $(WRAP_OBJ)
	$(CC) $(WRAP_CFLAGS) -c $< -o $@

$(WRAP_OBJ):
	@mkdir -p $@

-include $(WRAP_GEN_OBJS:.o=.d) $(WRAP_DRIVER_OBJS:.o=.d)

wrap-test: wrap-tools
	@wrap/tests/run

# The equiv checks use the tools: build them once, before parallel equiv runs start.
$(EQUIV_T): wrap-tools
