"""pytest's hooks for ``pytest --nbval book``: a notebook kernel that dies while it starts is started again.

CI runs the notebooks twice at a time (``.ci/test``).  jupyter_client picks a new kernel's ports by
binding free ones and releasing them for the kernel to bind, so a kernel that the other run starts
at that moment can take one of them, and the new kernel dies before it answers ("Kernel died
before replying to kernel_info", an intermittent failure reported to jupyter_client).  No cell of
the notebook has run then, so starting its kernel again changes nothing that nbval checks; any
other failure is raised as it comes.
"""

from __future__ import annotations

try:
    import nbval.kernel
except ImportError:  # pytest without nbval: no notebook kernels to start
    nbval = None

#: Kernel starts tried for one notebook before its failure is reported.
ATTEMPTS = 3

#: What jupyter_client says of a kernel that died before it answered (the only failure retried).
DIED = "Kernel died before replying to kernel_info"


def retrying(start):
    """``start`` (nbval's ``start_new_kernel``), tried up to :data:`ATTEMPTS` times while the kernel
    dies before it answers."""

    def start_new_kernel(*args, **kwargs):
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return start(*args, **kwargs)
            except RuntimeError as error:
                if DIED not in str(error) or attempt == ATTEMPTS:
                    raise

    return start_new_kernel


if nbval is not None:
    nbval.kernel.start_new_kernel = retrying(nbval.kernel.start_new_kernel)
