COPY Value FROM $rows
