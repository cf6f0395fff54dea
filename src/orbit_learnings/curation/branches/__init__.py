"""Where work on two branches meets: whose ID wins, collisions, conflicts, the merge driver."""
