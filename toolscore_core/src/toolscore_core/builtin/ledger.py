"""One budget ledger for worker processes: a :class:`Budget` in a server process, and a proxy.

The ``local`` executor's workers are separate processes, so a :class:`Budget` handed to each
would be a copy per worker and N workers could spend the cap N times over. Instead
:func:`start_ledger` starts one small server process (a standard-library
:class:`multiprocessing.managers.BaseManager`) holding the only :class:`Budget`, and returns a
:class:`SharedBudget`: a picklable handle that forwards every ``reserve``, ``settle`` and
``release_owner`` to that one ledger, where the budget's own lock orders them. The cap then
holds across processes exactly as it holds across threads.

Why the handle carries the address and the authentication key itself, rather than being the
manager's own proxy: a manager proxy unpickled in a worker authenticates with the worker's
``current_process().authkey``, which depends on how the worker was started; carrying the key
works for any start method and any pool. It travels only over the pool's local pipes. Each
worker process connects once per ledger and reuses the connection (threads get their own, as
the standard proxies do).
"""

from __future__ import annotations

import os
import signal
import threading
from multiprocessing.managers import BaseManager, BaseProxy
from typing import Any

from toolscore_core.kernel.budget import Budget, Reservation

_LEDGER: Budget | None = None  # in the server process only


class _Ledger:
    """What the server exposes: the budget's members as methods (a proxy cannot read properties)."""

    def reserve(self, worst_case_usd: float | None, owner: str | None = None) -> Reservation:
        return _budget().reserve(worst_case_usd, owner)

    def settle(self, reservation: Reservation, actual_usd: float | None) -> None:
        _budget().settle(reservation, actual_usd)

    def release_owner(self, owner: str) -> float:
        return _budget().release_owner(owner)

    def state(self) -> tuple[float, float | None, bool, float | None, float]:
        budget = _budget()
        return (budget.spent_usd, budget.remaining_usd, budget.has_unknown_costs, budget.max_usd,
                budget.reserved_usd)


def _budget() -> Budget:
    if _LEDGER is None:  # pragma: no cover - the initializer always runs first
        raise RuntimeError("the ledger server was started without its budget")
    return _LEDGER


def _ledger() -> _Ledger:
    return _Ledger()


#: Seconds between the server's checks that the process that started it is still alive.
OWNER_POLL_S = 0.5


def _watch_owner(owner_pid: int) -> None:
    """Exit the server once its owner is gone: a driver killed with SIGKILL never calls
    ``close``, and the server's parent is the forkserver, not the driver, so no one else
    would stop it."""
    import time

    while True:
        time.sleep(OWNER_POLL_S)
        try:
            os.kill(owner_pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # pragma: no cover - alive, under another user
            continue


def _init_server(max_usd: float | None, allow_unknown_price: bool, spent_usd: float, owner_pid: int) -> None:
    """Server initializer: make the one budget; ignore Ctrl-C, so the ledger outlives the
    workers' last settle and is stopped by its owner (the executor's ``close``), or when the
    owner process is gone."""
    global _LEDGER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_owner, args=(owner_pid,), name="toolscore-ledger-owner", daemon=True).start()
    from toolscore_core.kernel.executors import settled_budget

    _LEDGER = settled_budget(max_usd, allow_unknown_price=allow_unknown_price, spent_usd=spent_usd)


class _LedgerProxy(BaseProxy):
    _exposed_ = ("reserve", "settle", "release_owner", "state")


class _LedgerManager(BaseManager):
    pass


_LedgerManager.register("ledger", callable=_ledger, proxytype=_LedgerProxy)

# (pid, address) -> a proxy of this process: one connection setup per worker per ledger
_CONNECTIONS: dict[tuple[int, Any], _LedgerProxy] = {}
_CONNECT_LOCK = threading.Lock()


class SharedBudget:
    """A picklable handle to a ledger held by a server process (see the module docstring).

    It is a :class:`~toolscore_core.kernel.budget.BudgetLike`: ``reserve``, ``settle``,
    ``release_owner``, ``spent_usd``, ``remaining_usd``, ``has_unknown_costs``, plus
    ``max_usd`` and ``reserved_usd`` as a :class:`Budget` has them.
    """

    def __init__(self, address: Any, authkey: bytes) -> None:
        self._address = address
        self._authkey = bytes(authkey)

    def __getstate__(self) -> dict[str, Any]:
        return {"address": self._address, "authkey": self._authkey}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._address = state["address"]
        self._authkey = state["authkey"]

    def _proxy(self) -> _LedgerProxy:
        key = (os.getpid(), self._address)
        with _CONNECT_LOCK:
            proxy = _CONNECTIONS.get(key)
            if proxy is None:
                manager = _LedgerManager(address=self._address, authkey=self._authkey)
                manager.connect()
                proxy = manager.ledger()  # type: ignore[attr-defined]
                _CONNECTIONS[key] = proxy
            return proxy

    def _call(self, method: str, *args: Any) -> Any:
        proxy: Any = self._proxy()  # typeshed types _callmethod as returning None
        return proxy._callmethod(method, args)

    def reserve(self, worst_case_usd: float | None, owner: str | None = None) -> Reservation:
        result: Reservation = self._call("reserve", worst_case_usd, owner)
        return result

    def settle(self, reservation: Reservation, actual_usd: float | None) -> None:
        self._call("settle", reservation, actual_usd)

    def release_owner(self, owner: str) -> float:
        return float(self._call("release_owner", owner))

    def _state(self) -> tuple[float, float | None, bool, float | None, float]:
        state: tuple[float, float | None, bool, float | None, float] = self._call("state")
        return state

    @property
    def spent_usd(self) -> float:
        return self._state()[0]

    @property
    def remaining_usd(self) -> float | None:
        return self._state()[1]

    @property
    def has_unknown_costs(self) -> bool:
        return self._state()[2]

    @property
    def max_usd(self) -> float | None:
        return self._state()[3]

    @property
    def reserved_usd(self) -> float:
        return self._state()[4]

    def __repr__(self) -> str:
        return f"SharedBudget(address={self._address!r})"


class LedgerServer:
    """The server process of one ledger and the handle to it; :meth:`close` stops it."""

    def __init__(self, max_usd: float | None, *, allow_unknown_price: bool = False, spent_usd: float = 0.0,
                 method: str | None = None) -> None:
        from toolscore_core.builtin.executors import process_context
        from toolscore_core.kernel.executors import settled_budget

        settled_budget(max_usd, allow_unknown_price=allow_unknown_price, spent_usd=spent_usd)  # bad input here
        self._manager = _LedgerManager(ctx=process_context(method))
        self._manager.start(_init_server, (max_usd, allow_unknown_price, spent_usd, os.getpid()))
        self.budget = SharedBudget(self._manager.address, bytes(self._manager._authkey))  # type: ignore[attr-defined]

    @property
    def pid(self) -> int | None:
        process = getattr(self._manager, "_process", None)
        return process.pid if process is not None else None

    def close(self) -> None:
        """Stop the server process and forget this process's connections to it."""
        with _CONNECT_LOCK:
            for key in [k for k in _CONNECTIONS if k[1] == self.budget._address]:
                del _CONNECTIONS[key]
        self._manager.shutdown()


__all__ = ["LedgerServer", "SharedBudget"]
