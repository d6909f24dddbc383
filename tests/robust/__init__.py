
# Serializable, but not by reduction (an optimistic retry loop: its read is no mover), and
# its network system is large: no engine decides it within several seconds, so a run of
# it can be interrupted, time out or be left by its client.
SLOW = """request incr { d := 0; while (d == 0) { while (X == 64) { yield }; y := X; yield;
  if (X == y) { X := y + 1; d := 1 } else { 0 } }; 1 }
request decr { d := 0; while (d == 0) { while (X == 0) { yield }; y := X; yield;
  if (X == y) { X := y - 1; d := 1 } else { 0 } }; 1 }
"""
