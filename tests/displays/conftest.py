"""On a failing browser test, the report shows what the hub said, what each page showed and
how loaded the machine was: the hub runs as a subprocess whose output pytest does not
capture, and the pages are gone once the test's fixtures close."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Browser

from support.browser import HubProcess, page_states


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    one, five, fifteen = os.getloadavg()
    report.sections.append(
        ("machine", f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores")
    )
    for hub in HubProcess.running:
        report.sections.append((f"hub log {hub.log} (its end)", hub.log_tail()))
    browser = item.funcargs.get("browser")
    if isinstance(browser, Browser):
        report.sections.append(("pages", "\n\n".join(page_states(browser))))
