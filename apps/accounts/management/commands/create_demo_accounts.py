from django.core.management.base import BaseCommand

from apps.accounts.services import demo_accounts_create


class Command(BaseCommand):
    help = "Create (or reset) the demo accounts annotator, researcher and admin; print passwords."

    def handle(self, *args, **options) -> None:
        self.stdout.write("Demo accounts (passwords are new on every run):")
        for username, role, password, email in demo_accounts_create():
            self.stdout.write(
                f"  {username:<11} role={role:<10} password={password}  e-mail={email}"
            )
