"""Test bot: starts a child and a grandchild in its own session, writes their pids, sleeps.

The process sandbox must kill all three and leave no zombie.
"""

import os
import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
grand = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
with open("env.txt", "w") as f:
    f.write("\n".join(sorted(os.environ)))
with open("pids.txt", "w") as f:
    f.write(f"{os.getpid()} {child.pid} {grand.pid}\n")
print("spawner: started", child.pid, grand.pid, flush=True)
time.sleep(600)
