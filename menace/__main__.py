from menace.cli import main

main()
