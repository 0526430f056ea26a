# SPDX-License-Identifier: GPL-2.0
# One tool over libktrepl: its Makefile sets TOOL (and TOOL_LIBS), then
# includes this. Everything lands in $(OUTPUT)$(TOOL)/.
include $(dir $(lastword $(MAKEFILE_LIST)))build.mk

OUT := $(OUTPUT)$(TOOL)/
SRCS := $(wildcard *.c)
OBJS := $(addprefix $(OUT),$(SRCS:.c=.o))
CFLAGS += -I$(LIBKTREPL_DIR)

all: $(OUT)$(TOOL)

$(OUT)$(TOOL): $(OBJS) $(LIBKTREPL)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LIBKTREPL) $(LIBKTREPL_LIBS) $(TOOL_LIBS)

$(OUT)%.o: %.c | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(OUT):
	@mkdir -p $@

$(LIBKTREPL): FORCE
	$(MAKE) -C $(LIBKTREPL_DIR) OUTPUT=$(OUTPUT) CC="$(CC)" AR="$(AR)"

FORCE:

clean:
	rm -f $(OBJS) $(OBJS:.o=.d) $(OUT)$(TOOL)

.PHONY: all clean FORCE

-include $(OBJS:.o=.d)
